; Common Lisp definitions. The grammar reads `defun`, `defmacro`, `defgeneric` and `defmethod`
; as a `defun` node (its header holds the name: a symbol, `pkg::name`, or `(setf name)`);
; the rest are lists headed by a defining symbol: `defclass` and `define-condition` (and their
; slots), `defstruct` (and its slots), `defvar`, `defparameter`, `defconstant`, `defpackage`.
; A method's scope is the class of its first specialized parameter. A docstring follows the
; lambda list of a function (only when a body follows it: a lone string is the value), the
; value of a variable, or is a `(:documentation "...")` option; without one, the `;` comments
; right above document the definition.

(list_lit
  (defun
    (defun_header
      keyword: (defun_keyword) @_kind
      function_name: [(sym_lit) @name (package_lit symbol: (sym_lit) @name) (list_lit) @name])
    (list_lit . (kwd_lit (kwd_symbol) @_option) . (str_lit) @doc)
    (#eq? @_option "documentation"))
  (#eq? @_kind "defgeneric")) @definition.function

(list_lit
  (defun
    (defun_header
      keyword: (defun_keyword) @_kind
      function_name: [(sym_lit) @name (package_lit symbol: (sym_lit) @name) (list_lit) @name])
    .
    ((str_lit) @doc . (_))?)
  (#any-of? @_kind "defun" "defmacro" "defgeneric")) @definition.function

(list_lit
  (defun
    (defun_header
      keyword: (defun_keyword) @_kind
      function_name: [(sym_lit) @name (package_lit symbol: (sym_lit) @name) (list_lit) @name]
      lambda_list: (list_lit . (list_lit . (sym_lit) . (sym_lit) @scope)))
    .
    ((str_lit) @doc . (_))?)
  (#eq? @_kind "defmethod")) @definition.method

(list_lit
  (defun
    (defun_header
      keyword: (defun_keyword) @_kind
      function_name: [(sym_lit) @name (package_lit symbol: (sym_lit) @name) (list_lit) @name])
    .
    ((str_lit) @doc . (_))?)
  (#eq? @_kind "defmethod")) @definition.method

; `(DEFUN name (args) "doc" ...)` in capitals (or any case but all lower): the grammar reads
; only `defun` and its kin as a `defun` node, so this is a plain list; the reader folds case,
; so it is the same definition. The other forms below are matched in any case too.
(list_lit
  .
  (sym_lit) @_kind
  .
  [(sym_lit) @name (package_lit symbol: (sym_lit) @name)]
  .
  (list_lit)
  .
  ((str_lit) @doc . (_))?
  (#match? @_kind "(?i)^(defun|defmacro|defgeneric)$")) @definition.function

(list_lit
  .
  (sym_lit) @_kind
  .
  [(sym_lit) @name (package_lit symbol: (sym_lit) @name)]
  (#match? @_kind "(?i)^defmethod$")) @definition.method

; `(defvar *name* value "doc")`; a lone value is no docstring.
(list_lit
  .
  (sym_lit) @_kind
  .
  (sym_lit) @name
  .
  ((_) . (str_lit) @doc)?
  (#match? @_kind "(?i)^(defvar|defparameter)$")) @definition.variable

(list_lit
  .
  (sym_lit) @_kind
  .
  (sym_lit) @name
  .
  ((_) . (str_lit) @doc)?
  (#match? @_kind "(?i)^defconstant$")) @definition.constant

(list_lit
  .
  (sym_lit) @_kind
  .
  [(kwd_lit (kwd_symbol) @name) (sym_lit) @name (str_lit) @name]
  (list_lit . (kwd_lit (kwd_symbol) @_option) . (str_lit) @doc)?
  (#eq? @_option "documentation")
  (#match? @_kind "(?i)^defpackage$")) @definition.module

; Classes and conditions, with their slots as fields.
(list_lit
  .
  (sym_lit) @_kind
  .
  (sym_lit) @name
  .
  (list_lit)
  .
  (list_lit)
  (list_lit . (kwd_lit (kwd_symbol) @_option) . (str_lit) @doc)?
  (#eq? @_option "documentation")
  (#match? @_kind "(?i)^(defclass|define-condition)$")) @definition.class

(list_lit
  .
  (sym_lit) @_kind
  .
  (sym_lit)
  .
  (list_lit)
  .
  (list_lit [(sym_lit) @name @definition.field (list_lit . (sym_lit) @name) @definition.field])
  (#match? @_kind "(?i)^(defclass|define-condition)$"))

; `(defstruct name "doc" slot (slot default))`, or `(defstruct (name options) ...)`.
(list_lit
  .
  (sym_lit) @_kind
  .
  [(sym_lit) @name (list_lit . (sym_lit) @name)]
  .
  (str_lit)? @doc
  (#match? @_kind "(?i)^defstruct$")) @definition.struct

(list_lit
  .
  (sym_lit) @_kind
  .
  [(sym_lit) (list_lit . (sym_lit))]
  [(sym_lit) @name @definition.field (list_lit . (sym_lit) @name) @definition.field]
  (#match? @_kind "(?i)^defstruct$"))
