; Janet definitions: `defn`, `defn-`, `defmacro`, `defmacro-` and `varfn` (the grammar's
; `extra_defs`), and the top-level `def`, `def-`, `var` and `var-` bindings, functions when
; bound to an `fn`. A docstring is the string among a definition's metadata
; (`(defn f "doc" [x] ...)`, `(def x :private "doc" 1)`); without one, the `#` comments
; right above document a definition.

(extra_defs
  name: (symbol) @name
  (metadata [(str_literal) (long_str_literal)] @doc)?) @definition.function

(source_file
  (def
    name: (symbol) @name
    (metadata [(str_literal) (long_str_literal)] @doc)?) @definition.variable)

(source_file
  (def name: (symbol) @name value: (fn)) @definition.function)

(source_file (var name: (symbol) @name) @definition.variable)

(source_file
  (tuple
    .
    (symbol) @_kind
    .
    (symbol) @name
    (#any-of? @_kind "def-" "var-")) @definition.variable)

; `(comment (defn scratch [] ...))` is read and thrown away: nothing in it is defined.
(tuple
  .
  (symbol) @_head
  (#eq? @_head "comment")) @inert
