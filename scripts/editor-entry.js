// The parts of ProseMirror the admin's rich-text editor uses, bundled by
// scripts/build-editor.mjs into assets/vendor/prosemirror/prosemirror.min.js
// as one global, window.KalendsProseMirror. Our own code that uses it is
// assets/js/editor.js, served as it is written.
export { EditorState, Plugin, TextSelection } from "prosemirror-state";
export { EditorView } from "prosemirror-view";
export { Schema, DOMParser, DOMSerializer } from "prosemirror-model";
export { nodes, marks } from "prosemirror-schema-basic";
export { addListNodes, wrapInList, splitListItem, liftListItem, sinkListItem } from "prosemirror-schema-list";
export { history, undo, redo } from "prosemirror-history";
export { keymap } from "prosemirror-keymap";
export { baseKeymap, toggleMark, setBlockType, wrapIn, lift, chainCommands, exitCode } from "prosemirror-commands";
export { inputRules, wrappingInputRule, textblockTypeInputRule } from "prosemirror-inputrules";
