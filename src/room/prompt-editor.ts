import { EditorState } from '@codemirror/state';
import { Decoration, EditorView, keymap, MatchDecorator, placeholder, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';
import { minimalSetup } from 'codemirror';

export interface PromptEditor {
  /** Shows `doc` with the task's `variables` highlighted (a placeholder that is not one of them is marked). */
  load(doc: string, variables: string[]): void;
  text(): string;
  focus(): void;
  destroy(): void;
}

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]{0,31})\s*\}\}/g;

/** Marks every {{name}}: the task's variables in one style, anything else as not a variable of this task. */
function highlightVariables(variables: ReadonlySet<string>) {
  const decorator = new MatchDecorator({
    regexp: PLACEHOLDER,
    decoration: (m) => Decoration.mark({
      class: variables.has(m[1]!) ? 'prep-var' : 'prep-var prep-var-unknown',
      attributes: { title: variables.has(m[1]!) ? `Replaced by each case's ${m[1]}` : `Not a variable of this task: left as written` },
    }),
  });
  return ViewPlugin.fromClass(class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorator.createDeco(view);
    }
    update(update: ViewUpdate) {
      this.decorations = decorator.updateDeco(update, this.decorations);
    }
  }, { decorations: (v) => v.decorations });
}

/** A prose editor for prompts (CodeMirror 6): wrapped lines, undo, Ctrl/Cmd+Enter submits. */
export function createPromptEditor(parent: HTMLElement, options: { root: Document | ShadowRoot; onChange(doc: string): void; onSubmit(): void }): PromptEditor {
  const state = (doc: string, variables: string[]) => EditorState.create({
    doc,
    extensions: [
      minimalSetup,
      EditorView.lineWrapping,
      placeholder('Write your prompt. Use the task\'s variables, such as {{input}}.'),
      highlightVariables(new Set(variables)),
      keymap.of([{ key: 'Mod-Enter', preventDefault: true, run: () => (options.onSubmit(), true) }]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) options.onChange(u.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'Prompt', 'aria-describedby': 'prep-prompt-help' }),
    ],
  });
  const view = new EditorView({ parent, root: options.root, state: state('', []) });
  return {
    load: (doc, variables) => view.setState(state(doc, variables)),
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
