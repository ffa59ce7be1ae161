// Kalends admin: the rich-text editor of descriptions and excerpts, over
// ProseMirror (assets/vendor/prosemirror, bundled by scripts/build-editor.mjs).
//
// Progressive enhancement: every textarea[data-rich] stays in the form and
// is the field the form sends; the editor is put beside it and the textarea
// is hidden. Without JavaScript (or without the bundle) the textarea is the
// field, as before.
//
// Nothing is lost by opening and saving:
//   - the textarea is written only after a real edit in the visual editor
//     (and gets its first value back when the edit is undone), so a field
//     left alone is sent byte for byte as it came;
//   - content the editor cannot show without changing it (a table, code,
//     attributes it does not keep, plain text whose line breaks matter...)
//     opens as HTML source (the textarea itself) with a note; the decision
//     parses the value, serializes the editor's document and compares both
//     in a normalized form, and says "source" whenever in doubt.
//
// The editor makes only what models' sanitizer keeps: p, h2-h4 (h1-h6 read),
// strong, em, a[href title], ul, ol[start], li, blockquote, img[src alt
// title], br, hr. Pasted HTML goes through the same schema, so its styles,
// classes and unknown elements are dropped and its structure kept.
//
// For other scripts (the media library's picker):
//   window.KalendsEditor.insertImage(textarea, {src, alt, title}) inserts an
//     image at the editor's selection (in HTML source mode, as an <img> tag
//     at the textarea's caret) and returns true when it did;
//   the "Image" button first dispatches a cancelable "kalends:pick-image"
//     event on the textarea (bubbling; detail: {textarea}); a picker that
//     calls preventDefault() takes over and later calls insertImage.
//     Otherwise the button asks for an address.
//   A "kalends:insert-image" event with detail {src, alt, title} dispatched
//     on the textarea does the same as insertImage.
//   window.KalendsEditor.attach(textarea, options) / detach(textarea) set up
//     or remove the editor of a field (attach runs on every textarea[data-rich]
//     when the page loads and after an htmx swap). options.composition =
//     false turns ProseMirror's input-method handling off: it exists only so
//     that the browser tests can show that their IME tests catch an editor
//     that mishandles composition (web/e2e/ime_test.go).
(function () {
  "use strict";
  var PM = window.KalendsProseMirror;
  if (!PM) {
    return;
  }

  // ------------------------------------------------------------ schema

  var base = new PM.Schema({
    nodes: {
      doc: PM.nodes.doc,
      paragraph: PM.nodes.paragraph,
      blockquote: PM.nodes.blockquote,
      horizontal_rule: PM.nodes.horizontal_rule,
      heading: PM.nodes.heading,
      text: PM.nodes.text,
      image: PM.nodes.image,
      hard_break: PM.nodes.hard_break
    },
    marks: {}
  });
  // Bold and italic are read from their elements, and from the styles of
  // pasted spans (Google Docs, Word), which cleanPaste renames data-style:
  // a style attribute would break the CSP even in a detached document.
  function styleOf(node) {
    return (node.getAttribute("data-style") || "").toLowerCase();
  }
  function styled(re) {
    return function (node) {
      return re.test(styleOf(node)) && null;
    };
  }
  var strong = Object.assign({}, PM.marks.strong, {
    parseDOM: [
      { tag: "strong" },
      { tag: "b", getAttrs: function (node) {
        return !/font-weight\s*:\s*(normal|[1-4]00)\b/.test(styleOf(node)) && null;
      } },
      { tag: "span[data-style]", getAttrs: styled(/font-weight\s*:\s*(bold|bolder|[6-9]00)\b/) }
    ]
  });
  var em = Object.assign({}, PM.marks.em, {
    parseDOM: [{ tag: "i" }, { tag: "em" }, { tag: "span[data-style]", getAttrs: styled(/font-style\s*:\s*italic\b/) }]
  });
  var schema = new PM.Schema({
    nodes: PM.addListNodes(base.spec.nodes, "paragraph block*", "block"),
    marks: { link: PM.marks.link, em: em, strong: strong }
  });

  // cleanPaste prepares HTML from the clipboard: comments, style sheets
  // and Office's own elements go, and style attributes are renamed
  // data-style (read for bold and italic above, dropped with every other
  // attribute the schema does not keep).
  function cleanPaste(html) {
    return html.replace(/<!--[\s\S]*?-->/g, "").replace(/<style[\s\S]*?<\/style>/gi, "")
      .replace(/<\/?o:p[^>]*>/gi, "")
      .replace(/<[a-zA-Z][^>]*>/g, function (tag) {
        return tag.replace(/(\s)style(\s*=)/gi, "$1data-style$2");
      });
  }
  var parser = PM.DOMParser.fromSchema(schema);
  var serializer = PM.DOMSerializer.fromSchema(schema);
  var N = schema.nodes;
  var M = schema.marks;

  // parse reads HTML into a document of the schema (in an inert template:
  // nothing loads, nothing runs).
  function parse(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return parser.parse(t.content);
  }

  var inert = document.implementation.createHTMLDocument("");

  function isEmpty(doc) {
    return doc.childCount === 1 && doc.firstChild.type === N.paragraph && doc.firstChild.content.size === 0;
  }

  // toHTML is the HTML of a document; a list item's only paragraph is
  // written without its <p> (as people and other editors write lists).
  function toHTML(doc) {
    if (isEmpty(doc)) {
      return "";
    }
    // In a document of its own: nothing in it loads (no image).
    var div = inert.createElement("div");
    div.appendChild(serializer.serializeFragment(doc.content, { document: inert }));
    div.querySelectorAll("li").forEach(function (li) {
      var p = li.firstElementChild;
      if (li.childNodes.length === 1 && p && p.nodeName === "P" && p.attributes.length === 0) {
        while (p.firstChild) {
          li.insertBefore(p.firstChild, p);
        }
        li.removeChild(p);
      }
    });
    return div.innerHTML;
  }

  // ------------------------------------------------ lossless or not

  var blockTags = /^(p|h[1-6]|ul|ol|li|blockquote|hr|div|table|thead|tbody|tfoot|tr|td|th|caption|colgroup|col|pre|figure|figcaption|section|article|aside|header|footer|nav|dl|dt|dd|address|details|summary)$/;

  // canon is a normalized form of an HTML fragment: elements with their
  // attributes sorted, runs of white space as one space, white space next
  // to a block's tags dropped, and a list item's only <p> unwrapped. Two
  // fragments with the same canon look the same.
  function canon(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var out = [];
    function walk(node) {
      node.childNodes.forEach(function (n) {
        if (n.nodeType === 3) {
          out.push(n.data.replace(/[ \t\n\r\f]+/g, " "));
          return;
        }
        if (n.nodeType !== 1) {
          out.push("<!" + n.nodeType + ">"); // a comment: not kept by the editor
          return;
        }
        var tag = n.localName;
        var attrs = Array.prototype.map.call(n.attributes, function (a) {
          return a.name + "=" + JSON.stringify(a.value);
        }).sort();
        out.push("<" + tag + (attrs.length ? " " + attrs.join(" ") : "") + ">");
        var only = n.firstElementChild;
        if (tag === "li" && n.childNodes.length === 1 && only && only.localName === "p" && only.attributes.length === 0) {
          walk(only);
        } else {
          walk(n.content || n);
        }
        out.push("</" + tag + ">");
      });
    }
    walk(t.content);
    var s = out.join("");
    // White space at a block's edges does not show.
    s = s.replace(/ ?(<\/?([a-z0-9]+)[^>]*>) ?/g, function (m, tagText, tag) {
      return blockTags.test(tag) || tag === "br" ? tagText : m;
    });
    return s.trim();
  }

  // hasTopBlock tells whether the fragment has an element of blockTags at
  // its top level.
  function hasTopBlock(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return Array.prototype.some.call(t.content.children, function (el) {
      return blockTags.test(el.localName);
    });
  }

  // representable tells whether the editor shows html without changing it.
  function representable(html) {
    if (html.trim() === "") {
      return true;
    }
    var doc = parse(html);
    var again = canon(toHTML(doc));
    if (canon(html) === again) {
      return true;
    }
    // Text and inline markup alone, on one line: the site wraps it in a
    // paragraph, as the editor does. On several lines the line breaks make
    // paragraphs and breaks on the site (api autop), which the editor
    // would lose.
    if (!hasTopBlock(html) && !/[\r\n]/.test(html)) {
      return canon("<p>" + html.trim() + "</p>") === again;
    }
    return false;
  }

  // --------------------------------------------------------- commands

  function markActive(state, type) {
    var sel = state.selection;
    if (sel.empty) {
      return !!type.isInSet(state.storedMarks || sel.$from.marks());
    }
    return state.doc.rangeHasMark(sel.from, sel.to, type);
  }

  function blockActive(state, type, attrs) {
    var $from = state.selection.$from;
    var node = $from.parent;
    if (node.type !== type) {
      return false;
    }
    for (var k in attrs || {}) {
      if (node.attrs[k] !== attrs[k]) {
        return false;
      }
    }
    return true;
  }

  function wrappedIn(state, type) {
    var $from = state.selection.$from;
    for (var d = $from.depth; d > 0; d--) {
      if ($from.node(d).type === type) {
        return true;
      }
    }
    return false;
  }

  // listType is the type of the innermost list around the selection.
  function listType(state) {
    var $from = state.selection.$from;
    for (var d = $from.depth; d > 0; d--) {
      var t = $from.node(d).type;
      if (t === N.bullet_list || t === N.ordered_list) {
        return t;
      }
    }
    return null;
  }

  function toggleHeading(level) {
    return function (state, dispatch) {
      if (blockActive(state, N.heading, { level: level })) {
        return PM.setBlockType(N.paragraph)(state, dispatch);
      }
      return PM.setBlockType(N.heading, { level: level })(state, dispatch);
    };
  }

  function toggleList(type) {
    return function (state, dispatch) {
      var cur = listType(state);
      if (cur === type) {
        return PM.liftListItem(N.list_item)(state, dispatch);
      }
      if (cur) {
        // From one kind of list to the other: change the list's type.
        var $from = state.selection.$from;
        for (var d = $from.depth; d > 0; d--) {
          if ($from.node(d).type === cur) {
            if (dispatch) {
              dispatch(state.tr.setNodeMarkup($from.before(d), type));
            }
            return true;
          }
        }
      }
      return PM.wrapInList(type)(state, dispatch);
    };
  }

  function toggleQuote(state, dispatch) {
    if (wrappedIn(state, N.blockquote)) {
      return PM.lift(state, dispatch);
    }
    return PM.wrapIn(N.blockquote)(state, dispatch);
  }

  function insertImage(attrs) {
    return function (state, dispatch) {
      if (!attrs.src) {
        return false;
      }
      var node = N.image.create({ src: attrs.src, alt: attrs.alt || null, title: attrs.title || null });
      if (dispatch) {
        dispatch(state.tr.replaceSelectionWith(node).scrollIntoView());
      }
      return true;
    };
  }

  function setLink(href) {
    return function (state, dispatch) {
      var sel = state.selection;
      if (!href) {
        return false;
      }
      if (dispatch) {
        var tr = state.tr;
        if (sel.empty) {
          // No selection: the address is the link's text.
          var text = schema.text(href, [M.link.create({ href: href })]);
          tr.replaceSelectionWith(text, false);
        } else {
          // The link is made; the cursor goes to its end.
          tr.removeMark(sel.from, sel.to, M.link).addMark(sel.from, sel.to, M.link.create({ href: href }));
          tr.setSelection(PM.TextSelection.create(tr.doc, sel.to));
        }
        dispatch(tr.scrollIntoView());
      }
      return true;
    };
  }

  // removeLink takes the link off the selection, or off the whole link
  // around the cursor.
  function removeLink(state, dispatch) {
    var sel = state.selection;
    var from = sel.from;
    var to = sel.to;
    if (sel.empty) {
      var $pos = sel.$from;
      var start = $pos.start();
      var runs = [];
      var cur = null;
      $pos.parent.forEach(function (n, offset) {
        var a = start + offset;
        var b = a + n.nodeSize;
        if (M.link.isInSet(n.marks)) {
          if (cur) {
            cur.to = b;
          } else {
            cur = { from: a, to: b };
            runs.push(cur);
          }
        } else {
          cur = null;
        }
      });
      var run = runs.filter(function (r) {
        return r.from <= $pos.pos && $pos.pos <= r.to;
      })[0];
      if (!run) {
        return false;
      }
      from = run.from;
      to = run.to;
    }
    if (dispatch) {
      dispatch(state.tr.removeMark(from, to, M.link));
    }
    return true;
  }

  var keys = {
    "Mod-z": PM.undo,
    "Shift-Mod-z": PM.redo,
    "Mod-y": PM.redo,
    "Mod-b": PM.toggleMark(M.strong),
    "Mod-i": PM.toggleMark(M.em),
    "Shift-Enter": PM.chainCommands(PM.exitCode, function (state, dispatch) {
      if (dispatch) {
        dispatch(state.tr.replaceSelectionWith(N.hard_break.create()).scrollIntoView());
      }
      return true;
    }),
    "Enter": PM.splitListItem(N.list_item),
    "Mod-[": PM.liftListItem(N.list_item),
    "Mod-]": PM.sinkListItem(N.list_item)
  };

  function rules() {
    return PM.inputRules({
      rules: [
        PM.wrappingInputRule(/^\s*>\s$/, N.blockquote),
        PM.wrappingInputRule(/^\s*([-+*])\s$/, N.bullet_list),
        PM.wrappingInputRule(/^(\d+)\.\s$/, N.ordered_list, function (m) {
          return { order: +m[1] };
        }, function (m, node) {
          return node.childCount + node.attrs.order === +m[1];
        }),
        PM.textblockTypeInputRule(/^(#{2,3})\s$/, N.heading, function (m) {
          return { level: m[1].length };
        })
      ]
    });
  }

  // noComposition blocks ProseMirror's own handling of input methods (see
  // options.composition at the top).
  function noComposition() {
    var stop = function () {
      return true;
    };
    return new PM.Plugin({
      props: { handleDOMEvents: { compositionstart: stop, compositionupdate: stop, compositionend: stop } }
    });
  }

  // -------------------------------------------------------------- UI

  var editors = new WeakMap();
  var uid = 0;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      e.setAttribute(k, attrs[k]);
    }
    if (text) {
      e.textContent = text;
    }
    return e;
  }

  // The toolbar's buttons: name (the label's key in data-rich), the command
  // and, for a toggle, whether it is on in a state.
  function buttonSpecs() {
    return [
      { name: "heading", cmd: toggleHeading(2), on: function (s) { return blockActive(s, N.heading, { level: 2 }); } },
      { name: "subheading", cmd: toggleHeading(3), on: function (s) { return blockActive(s, N.heading, { level: 3 }); } },
      { sep: true },
      { name: "bold", cmd: PM.toggleMark(M.strong), on: function (s) { return markActive(s, M.strong); } },
      { name: "italic", cmd: PM.toggleMark(M.em), on: function (s) { return markActive(s, M.em); } },
      { sep: true },
      { name: "bulletList", cmd: toggleList(N.bullet_list), on: function (s) { return listType(s) === N.bullet_list; } },
      { name: "orderedList", cmd: toggleList(N.ordered_list), on: function (s) { return listType(s) === N.ordered_list; } },
      { name: "quote", cmd: toggleQuote, on: function (s) { return wrappedIn(s, N.blockquote); } },
      { sep: true },
      { name: "link", prompt: "link", on: function (s) { return markActive(s, M.link); } },
      { name: "image", prompt: "image" },
      { sep: true },
      { name: "undo", cmd: PM.undo },
      { name: "redo", cmd: PM.redo }
    ];
  }

  // Icons drawn here (24 × 24, stroked) for the buttons whose mark is no
  // letter; the others are letters and signs from admin's CSS.
  var icons = {
    link: ["M9 15l6-6", "M11 6l2-2a4 4 0 0 1 6 6l-2 2", "M13 18l-2 2a4 4 0 0 1-6-6l2-2"],
    image: ["M5 4h14a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z", "M9 8a2 2 0 1 1 0 4a2 2 0 1 1 0-4z", "M21 16l-5-5-10 9"]
  };

  function svgIcon(paths) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    [["viewBox", "0 0 24 24"], ["width", "18"], ["height", "18"], ["fill", "none"], ["stroke", "currentColor"],
      ["stroke-width", "2"], ["stroke-linecap", "round"], ["stroke-linejoin", "round"], ["aria-hidden", "true"],
      ["focusable", "false"]].forEach(function (a) {
      svg.setAttribute(a[0], a[1]);
    });
    paths.forEach(function (d) {
      var p = document.createElementNS(ns, "path");
      p.setAttribute("d", d);
      svg.appendChild(p);
    });
    return svg;
  }

  function attach(textarea, options) {
    if (editors.has(textarea)) {
      return editors.get(textarea);
    }
    options = options || {};
    var labels = {};
    try {
      labels = JSON.parse(textarea.getAttribute("data-rich") || "{}");
    } catch (err) {
      labels = {};
    }
    var id = "rich-" + (++uid);
    var ed = { textarea: textarea, labels: labels, original: textarea.value, mode: "visual" };

    var wrap = el("div", { "class": "rich", "data-rich-editor": "" });
    var bar = el("div", { "class": "rich-toolbar", role: "toolbar", "aria-label": labels.toolbar || "", "aria-controls": id });
    var buttons = [];
    buttonSpecs().forEach(function (spec) {
      if (spec.sep) {
        bar.appendChild(el("span", { "class": "rich-sep", "aria-hidden": "true" }));
        return;
      }
      var b = el("button", { type: "button", "class": "rich-button rich-" + spec.name, "data-rich-cmd": spec.name,
        "aria-label": labels[spec.name] || spec.name, title: labels[spec.name] || spec.name });
      if (spec.on) {
        b.setAttribute("aria-pressed", "false");
      }
      b.appendChild(icons[spec.name] ? svgIcon(icons[spec.name]) : el("span", { "aria-hidden": "true", "class": "rich-icon" }));
      b.addEventListener("mousedown", function (e) {
        e.preventDefault(); // keep the editor's selection
      });
      b.addEventListener("click", function () {
        if (spec.prompt) {
          openPrompt(ed, spec.prompt);
          return;
        }
        spec.cmd(ed.view.state, ed.view.dispatch, ed.view);
        ed.view.focus();
      });
      buttons.push({ spec: spec, el: b });
      bar.appendChild(b);
    });
    bar.appendChild(el("span", { "class": "rich-sep", "aria-hidden": "true" }));
    var sourceButton = el("button", { type: "button", "class": "rich-button rich-source-toggle", "data-rich-cmd": "source",
      "aria-pressed": "false" }, labels.source || "HTML");
    sourceButton.addEventListener("click", function () {
      setMode(ed, ed.mode === "visual" ? "source" : "visual", true);
    });
    bar.appendChild(sourceButton);
    // One tab stop for the toolbar; the arrow keys, Home and End move
    // within it (the ARIA toolbar pattern).
    bar.addEventListener("keydown", function (e) {
      var all = toolbarButtons(ed).filter(function (b) {
        return !b.disabled;
      });
      var at = all.indexOf(document.activeElement);
      var to = -1;
      if (e.key === "ArrowRight" || e.key === "ArrowDown") {
        to = (at + 1) % all.length;
      } else if (e.key === "ArrowLeft" || e.key === "ArrowUp") {
        to = (at - 1 + all.length) % all.length;
      } else if (e.key === "Home") {
        to = 0;
      } else if (e.key === "End") {
        to = all.length - 1;
      }
      if (to >= 0 && all.length) {
        e.preventDefault();
        all[to].focus();
      }
    });
    bar.addEventListener("focusin", function (e) {
      if (e.target.matches("button")) {
        setTabStop(ed, e.target);
      }
    });

    var note = el("p", { "class": "rich-note help", "data-rich-note": "", id: id + "-note" }, labels.sourceNote || "");
    note.hidden = true;
    var promptBox = el("div", { "class": "rich-prompt", "data-rich-prompt": "" });
    promptBox.hidden = true;
    var host = el("div", { "class": "rich-host" + (textarea.rows && textarea.rows <= 3 ? " rich-short" : "") });

    wrap.appendChild(bar);
    wrap.appendChild(promptBox);
    wrap.appendChild(host);
    textarea.parentNode.insertBefore(wrap, textarea);
    textarea.parentNode.insertBefore(note, textarea.nextSibling);

    ed.wrap = wrap;
    ed.bar = bar;
    ed.buttons = buttons;
    ed.sourceButton = sourceButton;
    ed.note = note;
    ed.promptBox = promptBox;
    ed.host = host;
    ed.id = id;
    ed.options = options;
    ed.insertImage = function (attrs) {
      return insertImageInto(ed, attrs);
    };
    textarea.addEventListener("kalends:insert-image", ed.onInsertEvent = function (e) {
      insertImageInto(ed, e.detail || {});
    });
    var label = textarea.id ? document.querySelector('label[for="' + CSS.escape(textarea.id) + '"]') : null;
    if (label) {
      label.addEventListener("click", ed.onLabel = function (e) {
        if (ed.mode === "visual") {
          e.preventDefault();
          ed.view.focus();
        }
      });
      ed.label = label;
    }
    editors.set(textarea, ed);
    if (representable(textarea.value)) {
      setMode(ed, "visual", false);
    } else {
      setMode(ed, "source", false);
      note.hidden = false;
      describedBy(textarea, note.id, true);
    }
    return ed;
  }

  // describedBy adds id to (on) or takes it from (off) el's
  // aria-describedby.
  function describedBy(el, id, on) {
    var ids = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (x) {
      return x && x !== id;
    });
    if (on) {
      ids.push(id);
    }
    if (ids.length) {
      el.setAttribute("aria-describedby", ids.join(" "));
    } else {
      el.removeAttribute("aria-describedby");
    }
  }

  function detach(textarea) {
    var ed = editors.get(textarea);
    if (!ed) {
      return;
    }
    if (ed.view) {
      ed.view.destroy();
    }
    textarea.removeEventListener("kalends:insert-image", ed.onInsertEvent);
    if (ed.label) {
      ed.label.removeEventListener("click", ed.onLabel);
    }
    describedBy(textarea, ed.note.id, false);
    ed.wrap.remove();
    ed.note.remove();
    textarea.hidden = false;
    var hint = textarea.id ? document.getElementById(textarea.id + "-hint") : null;
    if (hint) {
      hint.hidden = false;
    }
    editors.delete(textarea);
  }

  // newView builds the visual editor on the textarea's value.
  function newView(ed) {
    var textarea = ed.textarea;
    var plugins = [rules(), PM.keymap(keys), PM.keymap(PM.baseKeymap), PM.history()];
    if (ed.options.composition === false) {
      plugins.unshift(noComposition());
    }
    var doc = parse(textarea.value);
    ed.startDoc = doc;
    ed.startValue = textarea.value;
    var attrs = { role: "textbox", "aria-multiline": "true", id: ed.id, "class": "rich-content",
      "data-rich-content": "" };
    var label = ed.label ? ed.label.textContent.trim() : "";
    if (label) {
      attrs["aria-label"] = label;
    }
    ["aria-describedby", "aria-invalid", "lang"].forEach(function (a) {
      if (textarea.hasAttribute(a)) {
        attrs[a] = textarea.getAttribute(a);
      }
    });
    // The field's hint is about writing HTML: not the visual editor's.
    if (attrs["aria-describedby"]) {
      attrs["aria-describedby"] = attrs["aria-describedby"].split(/\s+/).filter(function (id) {
        var d = document.getElementById(id);
        return !(d && d.classList.contains("field-hint"));
      }).join(" ");
      if (!attrs["aria-describedby"]) {
        delete attrs["aria-describedby"];
      }
    }
    var view = new PM.EditorView(ed.host, {
      state: PM.EditorState.create({ doc: doc, plugins: plugins }),
      attributes: attrs,
      dispatchTransaction: function (tr) {
        var state = view.state.apply(tr);
        view.updateState(state);
        if (tr.docChanged) {
          // A real edit: the textarea takes the editor's HTML, or its first
          // value back when the document is what it was.
          textarea.value = state.doc.eq(ed.startDoc) ? ed.startValue : toHTML(state.doc);
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }
        updateButtons(ed);
      },
      transformPastedHTML: cleanPaste
    });
    ed.view = view;
    updateButtons(ed);
  }

  function setMode(ed, mode, focus) {
    var textarea = ed.textarea;
    ed.mode = mode;
    closePrompt(ed);
    if (mode === "visual") {
      if (ed.view) {
        ed.view.destroy();
        ed.view = null;
      }
      newView(ed);
      textarea.hidden = true;
      ed.host.hidden = false;
      ed.note.hidden = true;
      describedBy(textarea, ed.note.id, false);
      if (focus) {
        ed.view.focus();
      }
    } else {
      if (ed.view) {
        ed.view.destroy();
        ed.view = null;
      }
      ed.host.hidden = true;
      textarea.hidden = false;
      if (focus) {
        textarea.focus();
      }
    }
    var hint = textarea.id ? document.getElementById(textarea.id + "-hint") : null;
    if (hint && hint.classList.contains("field-hint")) {
      hint.hidden = mode === "visual";
    }
    ed.sourceButton.setAttribute("aria-pressed", String(mode === "source"));
    ed.wrap.classList.toggle("rich-source", mode === "source");
    updateButtons(ed);
  }

  function toolbarButtons(ed) {
    return ed.buttons.map(function (b) {
      return b.el;
    }).concat([ed.sourceButton]);
  }

  // setTabStop makes button (or, when it is disabled, the first enabled
  // button) the toolbar's one tab stop.
  function setTabStop(ed, button) {
    var all = toolbarButtons(ed);
    if (!button || button.disabled) {
      button = all.filter(function (b) {
        return !b.disabled;
      })[0];
    }
    all.forEach(function (b) {
      b.tabIndex = b === button ? 0 : -1;
    });
  }

  function updateButtons(ed) {
    var view = ed.mode === "visual" ? ed.view : null;
    ed.buttons.forEach(function (b) {
      var spec = b.spec;
      if (!view) {
        b.el.disabled = true;
        if (spec.on) {
          b.el.setAttribute("aria-pressed", "false");
        }
        return;
      }
      var state = view.state;
      b.el.disabled = spec.cmd ? !spec.cmd(state) : false;
      if (spec.on) {
        b.el.setAttribute("aria-pressed", String(!!spec.on(state)));
      }
    });
    var stop = toolbarButtons(ed).filter(function (b) {
      return b.tabIndex === 0;
    })[0];
    setTabStop(ed, stop);
  }

  // openPrompt shows the small form that asks for a link's or an image's
  // address (and an image's alternative text) in place, above the editor.
  function openPrompt(ed, kind) {
    var view = ed.view;
    if (!view) {
      return;
    }
    if (kind === "link" && markActive(view.state, M.link)) {
      removeLink(view.state, view.dispatch);
      view.focus();
      return;
    }
    if (kind === "image") {
      var ev = new CustomEvent("kalends:pick-image", { bubbles: true, cancelable: true, detail: { textarea: ed.textarea } });
      if (!ed.textarea.dispatchEvent(ev)) {
        return; // a picker took over
      }
    }
    var box = ed.promptBox;
    box.textContent = "";
    var fields = [];
    function field(name, type) {
      var fid = ed.id + "-" + name;
      var row = el("div", { "class": "rich-prompt-field" });
      row.appendChild(el("label", { "for": fid }, ed.labels[name] || name));
      var input = el("input", { type: type, id: fid, "data-rich-input": name });
      row.appendChild(input);
      box.appendChild(row);
      fields.push(input);
      return input;
    }
    var url = field("url", "url");
    var alt = kind === "image" ? field("alt", "text") : null;
    var actions = el("div", { "class": "rich-prompt-actions" });
    var apply = el("button", { type: "button", "class": "button button-small button-primary", "data-rich-apply": "" }, ed.labels.apply || "OK");
    var cancel = el("button", { type: "button", "class": "button button-small", "data-rich-cancel": "" }, ed.labels.cancel || "Cancel");
    actions.appendChild(apply);
    actions.appendChild(cancel);
    box.appendChild(actions);
    var done = function (ok) {
      var href = url.value.trim();
      closePrompt(ed);
      if (ok && href) {
        if (kind === "link") {
          setLink(href)(view.state, view.dispatch);
        } else {
          insertImage({ src: href, alt: alt.value.trim() })(view.state, view.dispatch);
        }
      }
      view.focus();
    };
    apply.addEventListener("click", function () {
      done(true);
    });
    cancel.addEventListener("click", function () {
      done(false);
    });
    fields.forEach(function (input) {
      input.addEventListener("keydown", function (e) {
        if (e.isComposing || e.keyCode === 229) {
          return;
        }
        if (e.key === "Enter") {
          e.preventDefault(); // not the form's submit
          done(true);
        } else if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          done(false);
        }
      });
    });
    box.hidden = false;
    url.focus();
  }

  function closePrompt(ed) {
    ed.promptBox.hidden = true;
    ed.promptBox.textContent = "";
  }

  function insertImageInto(ed, attrs) {
    if (!attrs || !attrs.src) {
      return false;
    }
    if (ed.mode === "visual" && ed.view) {
      var ok = insertImage(attrs)(ed.view.state, ed.view.dispatch);
      ed.view.focus();
      return ok;
    }
    var img = document.createElement("img");
    img.setAttribute("src", attrs.src);
    if (attrs.alt) {
      img.setAttribute("alt", attrs.alt);
    }
    if (attrs.title) {
      img.setAttribute("title", attrs.title);
    }
    var ta = ed.textarea;
    var at = ta.selectionStart || 0;
    ta.setRangeText(img.outerHTML, at, ta.selectionEnd || at, "end");
    ta.dispatchEvent(new Event("input", { bubbles: true }));
    return true;
  }

  function attachAll(root) {
    (root || document).querySelectorAll("textarea[data-rich]").forEach(function (t) {
      attach(t);
    });
  }

  window.KalendsEditor = {
    attach: attach,
    detach: detach,
    insertImage: function (textarea, attrs) {
      var ed = editors.get(textarea);
      return ed ? insertImageInto(ed, attrs) : false;
    },
    // representable and toHTML are the editor's rules, for tests.
    representable: representable,
    mode: function (textarea) {
      var ed = editors.get(textarea);
      return ed ? ed.mode : "";
    }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      attachAll(document);
    });
  } else {
    attachAll(document);
  }
  document.addEventListener("htmx:load", function (e) {
    attachAll(e.target);
  });
})();
