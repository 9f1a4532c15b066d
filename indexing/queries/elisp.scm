; Emacs Lisp definitions. The grammar has nodes of its own for `defun`/`defsubst`
; (`function_definition`), `defmacro` and `defvar`/`defconst` (`special_form`); the rest are
; lists headed by a defining symbol: `cl-defun`, `defcustom`, `defface`, `defgroup`,
; `define-minor-mode`, `define-derived-mode`, `cl-defstruct` (and its slots), `cl-defgeneric`,
; `cl-defmethod` (whose first specialized argument's type is its scope), EIEIO's `defclass`
; (and its slots) and `defalias`. A docstring follows the arglist of a function and the value
; of a variable; without one, the `;;` comments right above document the definition.

(function_definition
  name: (symbol) @name
  docstring: (string)? @doc) @definition.function

(macro_definition
  name: (symbol) @name
  docstring: (string)? @doc) @definition.macro

; `(defvar name value "doc")`; a lone value is no docstring, and `(defvar name)` declares.
(special_form "defvar" . (symbol) @name . (_) . (string) @doc) @definition.variable

(special_form "defvar" . (symbol) @name) @definition.variable

(special_form "defconst" . (symbol) @name . (_) . (string) @doc) @definition.constant

(special_form "defconst" . (symbol) @name) @definition.constant

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (_)
  .
  (string)? @doc
  (#any-of? @_kind "defvar-local" "defcustom" "defface" "defgroup")) @definition.variable

; Functions and macros with an arglist, then their docstring.
(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (list)
  .
  (string)? @doc
  (#any-of? @_kind
    "cl-defun" "cl-defsubst" "cl-defgeneric" "define-inline" "defun*"
    "cl-defmacro" "defmacro*" "define-compiler-macro")) @definition.function

; `(cl-defmethod area ((s circle)) ...)`: a method of `area` on `circle`.
(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (list . (list . (symbol) . (symbol) @scope))
  .
  (string)? @doc
  (#eq? @_kind "cl-defmethod")) @definition.method

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  (#eq? @_kind "cl-defmethod")) @definition.method

(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (string)? @doc
  (#any-of? @_kind "define-minor-mode" "define-globalized-minor-mode")) @definition.function

; `(define-derived-mode name parent "Mode name" "doc" ...)`.
(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (_)
  .
  (_)
  .
  (string)? @doc
  (#eq? @_kind "define-derived-mode")) @definition.function

; `(defalias 'new-name #'old-name "doc")`.
(list
  .
  (symbol) @_kind
  .
  (quote (symbol) @name)
  .
  (_)
  .
  (string)? @doc
  (#any-of? @_kind "defalias" "define-obsolete-function-alias")) @definition.function

; `(cl-defstruct name "doc" slot (slot default :type type))`, or `(cl-defstruct (name
; options) ...)`.
(list
  .
  (symbol) @_kind
  .
  [(symbol) @name (list . (symbol) @name)]
  .
  (string)? @doc
  (#any-of? @_kind "cl-defstruct" "defstruct")) @definition.struct

(list
  .
  (symbol) @_kind
  .
  [(symbol) (list . (symbol))]
  [(symbol) @name @definition.field (list . (symbol) @name) @definition.field]
  (#any-of? @_kind "cl-defstruct" "defstruct"))

; EIEIO: `(defclass name (parents) ((slot :initarg :slot) ...) "doc")`.
(list
  .
  (symbol) @_kind
  .
  (symbol) @name
  .
  (list)
  .
  (list)
  .
  (string)? @doc
  (#eq? @_kind "defclass")) @definition.class

(list
  .
  (symbol) @_kind
  .
  (symbol)
  .
  (list)
  .
  (list (list . (symbol) @name) @definition.field)
  (#eq? @_kind "defclass"))
