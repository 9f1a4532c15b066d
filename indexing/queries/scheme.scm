; Scheme definitions (Racket starts from these too): `(define (f args) ...)` functions,
; anywhere (an internal define is a helper of its function), curried ones `(define ((f a) b)
; ...)` too; `(define x ...)` variables at the top level or in a `begin`, a library or a
; module body, functions when their value is a `lambda`; `define-values`; macros
; (`define-syntax`); R7RS `define-record-type` with its constructor, predicate, fields,
; accessors and modifiers; `define-library` and Guile's `define-module`. Guile's docstring
; is the string right after the formals when a body follows it; otherwise the `;` comments
; right above document a definition.

(list
  .
  (symbol) @_kind
  .
  [(list . (symbol) @name) (list . (list . (symbol) @name))]
  .
  ((string) @doc . (_))?
  (#any-of? @_kind "define" "define*" "define-public" "define-inline" "define-integrable"))
  @definition.function

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (list . (symbol) @_lambda)
  (#any-of? @_kind "define" "define-public")
  (#any-of? @_lambda "lambda" "case-lambda" "lambda*" "λ")) @definition.function

(program
  (list
    .
    (symbol) @_kind
    .
    (symbol) @name
    (#any-of? @_kind "define" "define-public")) @definition.variable)

(list
  .
  (symbol) @_body
  (list
    .
    (symbol) @_kind
    .
    (symbol) @name
    (#any-of? @_kind "define" "define-public")) @definition.variable
  (#any-of? @_body "begin" "define-library" "library" "module" "module*" "define-module"))

(program
  (list
    .
    (symbol) @_kind
    .
    (list (symbol) @name @definition.variable)
    (#eq? @_kind "define-values")))

(list
  .
  (symbol) @_kind
  .
  [(symbol) @name (list . (symbol) @name)]
  (#any-of? @_kind "define-syntax" "define-syntax-rule" "define-macro" "define-syntax*"))
  @definition.macro

(list
  .
  (symbol) @_kind
  .
  [(list) (symbol)] @name
  (#any-of? @_kind "define-library" "library" "define-module")) @definition.module

; `(define-record-type point (make-point x y) point? (x point-x) (y point-y set-point-y!))`.
(list
  .
  (symbol) @_kind
  .
  [(symbol) @name (list . (symbol) @name)]
  (#eq? @_kind "define-record-type")) @definition.struct

(list
  .
  (symbol) @_kind
  .
  (_)
  .
  (list . (symbol) @name) @definition.constructor
  (#eq? @_kind "define-record-type"))

(list
  .
  (symbol) @_kind
  .
  (_)
  .
  (_)
  .
  (symbol) @name @definition.function
  (#eq? @_kind "define-record-type"))

(list
  .
  (symbol) @_kind
  .
  (_)
  .
  (_)
  .
  (_)
  (list . (symbol) @name) @definition.field
  (#eq? @_kind "define-record-type"))

(list
  .
  (symbol) @_kind
  .
  (_)
  .
  (_)
  .
  (_)
  (list . (symbol) (symbol) @name @definition.function)
  (#eq? @_kind "define-record-type"))

; A datum after `#;` is read and thrown away (Scheme's grammar wraps it in a `comment`,
; Racket's in a `sexp_comment`): nothing in it is defined. A `;` line holds no definition.
(comment) @inert
