; Python definitions: classes and functions (a function inside a class becomes a method in the
; extractor), module-level bindings and class attributes.

; Decorated definitions first: when two patterns give a name the same kind, the earlier one
; wins, and the decorators are part of the definition's span.
(decorated_definition
  definition: (function_definition name: (identifier) @name)) @definition.function

(decorated_definition
  definition: (class_definition name: (identifier) @name)) @definition.class

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module-level bindings: UPPER_CASE names are constants, anything else a variable. (This
; grammar hides the expression statement around an assignment.)
(module
  (assignment left: (identifier) @name) @definition.variable)

(module
  (assignment left: (identifier) @name) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Class attributes (dataclass fields, enum members, class constants).
(class_definition
  body: (block
    (assignment left: (identifier) @name) @definition.field))
