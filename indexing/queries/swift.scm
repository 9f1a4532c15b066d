; Swift definitions: protocols, classes, structs, enums and actors (all `class_declaration` in
; this grammar; the keyword says which), extensions (an `object` named `extension T` whose
; members belong to T, like Rust's `impl T`), functions, initializers, properties, enum cases
; and type aliases.

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(class_declaration
  "extension"
  name: (_) @name) @definition.extension

(class_declaration
  "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  "enum"
  name: (type_identifier) @name) @definition.enum

(class_declaration
  name: (type_identifier) @name) @definition.class

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  "init" @name) @definition.constructor

; Properties of a file or a type (class, struct, enum, actor, extension); a `let` or `var` in
; a function body, an initializer, a computed property or a closure is a local.
[
  (source_file
    (property_declaration
      name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
  (class_body
    (property_declaration
      name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
  (enum_class_body
    (property_declaration
      name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
]

(protocol_property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property

(enum_entry
  name: (simple_identifier) @name) @definition.enum_member

(typealias_declaration
  name: (type_identifier) @name) @definition.type_parameter
