; Racket definitions beyond Scheme's: `define/contract` and the like, `struct` (and its
; fields), classes `(define cart% (class object% ...))` with their `define/public` methods,
; `define-syntax-rule` and syntax/parse macros, and `module` forms (`module+ test` holds the
; file's own tests: `indexing.classify.in_test_module`).

(list
  .
  (symbol) @_kind
  .
  [(list . (symbol) @name) (list . (list . (symbol) @name))]
  (#any-of? @_kind
    "define/contract" "define/public" "define/private" "define/override" "define/augment"
    "define/pubment" "define/overment" "define/augride" "define/public-final"
    "define/override-final" "define/augment-final" "define-syntax-parser"
    "define-simple-macro" "define-syntax-parse-rule")) @definition.function

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (list . (symbol) @_class)
  (#eq? @_kind "define")
  (#any-of? @_class "class" "class*" "mixin" "interface")) @definition.class

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  (#any-of? @_kind "struct" "define-struct")) @definition.struct

(list
  .
  (symbol) @_kind
  .
  (symbol)
  .
  (symbol)?
  .
  (list [(symbol) @name @definition.field (list . (symbol) @name) @definition.field])
  (#any-of? @_kind "struct" "define-struct"))

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  (#any-of? @_kind "module" "module*" "module+")) @definition.module

; A datum after `#;` is read and thrown away: nothing in it is defined.
(sexp_comment) @inert
