import { indentWithTab } from '@codemirror/commands';
import { cpp } from '@codemirror/lang-cpp';
import { go } from '@codemirror/lang-go';
import { java } from '@codemirror/lang-java';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';
import { rust } from '@codemirror/lang-rust';
import { StreamLanguage, type LanguageSupport } from '@codemirror/language';
import { perl } from '@codemirror/legacy-modes/mode/perl';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { Compartment, EditorState, Prec, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';

/** Syntax support per sandbox language id; a language the room does not know is edited as plain text. */
const SYNTAX: Record<string, () => LanguageSupport | Extension> = {
  python: () => python(),
  javascript: () => javascript(),
  typescript: () => javascript({ typescript: true }),
  c: () => cpp(),
  cpp: () => cpp(),
  java: () => java(),
  rust: () => rust(),
  go: () => go(),
  perl: () => StreamLanguage.define(perl),
  bash: () => StreamLanguage.define(shell),
};

export const syntaxFor = (languageId: string): Extension => SYNTAX[languageId]?.() ?? [];

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
  const extensions = (languageId: string): Extension[] => [
    basicSetup,
    // Ahead of basicSetup's own Mod-Enter (insert a blank line).
    Prec.highest(keymap.of([
      { key: 'Mod-Enter', run: () => (options.onRun(), true) },
      { key: 'Mod-Shift-Enter', run: () => (options.onSubmit(), true) },
    ])),
    keymap.of([indentWithTab]),
    syntax.of(syntaxFor(languageId)),
    EditorView.contentAttributes.of({ 'aria-label': 'Code editor', 'aria-describedby': 'prep-editor-help' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent, root: options.root, state: EditorState.create({ doc: '', extensions: extensions('') }) });
  return {
    load(doc, languageId) {
      view.setState(EditorState.create({ doc, extensions: extensions(languageId) }));
    },
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
