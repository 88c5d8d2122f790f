import { indentWithTab } from '@codemirror/commands';
import { StreamLanguage, type LanguageSupport } from '@codemirror/language';
import { Compartment, EditorState, Prec, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';

/**
 * Syntax support per sandbox language id, each grammar its own chunk fetched the first time it is shown; a
 * language the room does not know is edited as plain text.
 */
const SYNTAX: Record<string, () => Promise<LanguageSupport | Extension>> = {
  python: () => import('@codemirror/lang-python').then((m) => m.python()),
  javascript: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  typescript: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ typescript: true })),
  c: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  cpp: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  java: () => import('@codemirror/lang-java').then((m) => m.java()),
  rust: () => import('@codemirror/lang-rust').then((m) => m.rust()),
  go: () => import('@codemirror/lang-go').then((m) => m.go()),
  perl: () => import('@codemirror/legacy-modes/mode/perl').then((m) => StreamLanguage.define(m.perl)),
  bash: () => import('@codemirror/legacy-modes/mode/shell').then((m) => StreamLanguage.define(m.shell)),
};

/** The highlighting for `languageId`; plain text when unknown or when its grammar could not be fetched. */
export const syntaxFor = (languageId: string): Promise<Extension> =>
  (SYNTAX[languageId]?.() ?? Promise.resolve([])).catch(() => []);

/** The language an editor opens in when the candidate has not chosen one: Python where offered, else the first. */
export const defaultLanguage = (languages: ReadonlyArray<{ id: string }>): string =>
  (languages.find((l) => l.id === 'python') ?? languages[0])?.id ?? '';

export interface CodeEditor {
  /** Shows `doc` in `languageId`'s highlighting, with its own undo history. */
  load(doc: string, languageId: string): void;
  text(): string;
  focus(): void;
  destroy(): void;
}

/**
 * A CodeMirror 6 editor. Tab indents; Escape then Tab moves focus on (CodeMirror's tab-focus mode), so the
 * editor does not trap keyboard users. `root` is the shadow root when the room is embedded.
 */
export function createEditor(parent: HTMLElement, options: {
  root?: Document | ShadowRoot; onChange(doc: string): void; onRun(): void; onSubmit(): void;
}): CodeEditor {
  const syntax = new Compartment();
  const extensions = (): Extension[] => [
    basicSetup,
    // Ahead of basicSetup's own Mod-Enter (insert a blank line).
    Prec.highest(keymap.of([
      { key: 'Mod-Enter', run: () => (options.onRun(), true) },
      { key: 'Mod-Shift-Enter', run: () => (options.onSubmit(), true) },
    ])),
    keymap.of([indentWithTab]),
    syntax.of([]), // the grammar arrives a moment later (see load)
    EditorView.contentAttributes.of({ 'aria-label': 'Code editor', 'aria-describedby': 'prep-editor-help' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent, root: options.root, state: EditorState.create({ doc: '', extensions: extensions() }) });
  let shown = 0; // which load the grammar is for: a later load wins over a grammar still on its way
  return {
    load(doc, languageId) {
      view.setState(EditorState.create({ doc, extensions: extensions() }));
      const load = ++shown;
      void syntaxFor(languageId).then((grammar) => {
        if (load === shown) view.dispatch({ effects: syntax.reconfigure(grammar) });
      });
    },
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    destroy: () => {
      shown = -1;
      view.destroy();
    },
  };
}
