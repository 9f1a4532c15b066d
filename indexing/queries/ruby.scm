; Ruby definitions: classes and modules (each reopening where it is written), methods and
; singleton methods, constants, and the accessors `attr_*` declares.

(class
  name: (constant) @name) @definition.class

(module
  name: (constant) @name) @definition.module

; `class Shop::Report`: the scope written in the name is the container.
(class
  name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.class

(module
  name: (scope_resolution scope: (_) @scope name: (constant) @name)) @definition.module

; `class << self` opens the class's singleton: its methods belong to the class.
(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

(assignment
  left: (constant) @name) @definition.constant

(call
  method: (identifier) @_attr
  arguments: (argument_list (simple_symbol) @name)
  (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor")) @definition.property

; Outranks the method pattern (see _KIND_RANK in the extractor).
(method
  name: (identifier) @name
  (#eq? @name "initialize")) @definition.constructor

; Another name for a method: `alias size length`, `alias_method :<<, :add`.
(alias
  name: (_) @name) @definition.method

(call
  method: (identifier) @_alias
  arguments: (argument_list . (simple_symbol) @name)
  (#eq? @_alias "alias_method")) @definition.method
