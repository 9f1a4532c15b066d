; Supplements tree-sitter-python's tags.scm (which reports every module-level assignment as a
; constant and the bare function/class node without its decorators).

; Module-level bindings: UPPER_CASE names are constants, anything else a variable.
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Class attributes (dataclass fields, enum members, class constants).
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))

; Decorated definitions: the decorators are part of the definition's span.
(decorated_definition
  definition: (function_definition name: (identifier) @name)) @definition.function

(decorated_definition
  definition: (class_definition name: (identifier) @name)) @definition.class
