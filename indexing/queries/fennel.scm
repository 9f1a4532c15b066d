; Fennel definitions: named `fn`, `lambda` and `λ` (a function stored in a table, `(fn M.join
; ...)`, has the table as its scope), `macro`, and the top-level `local`, `var` and `global`
; bindings, functions when bound to one. The docstring is the grammar's `docstring` field;
; without one, the `;` comments right above document a definition.

(fn name: (symbol) @name docstring: (string)? @doc) @definition.function

(lambda name: (symbol) @name docstring: (string)? @doc) @definition.function

(fn
  name: (multi_symbol . (symbol) @scope . (symbol) @name .)
  docstring: (string)? @doc) @definition.function

(lambda
  name: (multi_symbol . (symbol) @scope . (symbol) @name .)
  docstring: (string)? @doc) @definition.function

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (sequential_table)
  .
  ((string) @doc . (_))?
  (#eq? @_kind "macro")) @definition.macro

(program [(local . (binding (symbol) @name)) (var . (binding (symbol) @name))
          (global . (binding (symbol) @name))] @definition.variable)

(program [(local . (binding (symbol) @name) . [(fn) (lambda)])
          (var . (binding (symbol) @name) . [(fn) (lambda)])
          (global . (binding (symbol) @name) . [(fn) (lambda)])] @definition.function)

; `(comment (fn scratch [] ...))` is read and thrown away: nothing in it is defined.
(list
  .
  (symbol) @_head
  (#eq? @_head "comment")) @inert
