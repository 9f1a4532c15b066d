; Kotlin definitions: classes, interfaces, enums and objects, functions (an extension function
; belongs to its receiver's type, captured as its scope), constructors, properties, enum
; entries and type aliases. In this grammar every sort of class is a `class_declaration`;
; the keyword says which, so those patterns come before the plain class one.

(class_declaration
  "interface"
  (type_identifier) @name) @definition.interface

(class_declaration
  (type_identifier) @name
  (enum_class_body)) @definition.enum

(class_declaration
  (type_identifier) @name) @definition.class

(object_declaration
  (type_identifier) @name) @definition.object

(companion_object
  (type_identifier) @name) @definition.object

(function_declaration
  receiver: (receiver_type) @scope
  (simple_identifier) @name) @definition.method

(function_declaration
  (simple_identifier) @name) @definition.function

(secondary_constructor
  "constructor" @name) @definition.constructor

; Properties of a file, class, enum, object or companion object; a `val` in a function body,
; an `init` block, a getter or a lambda is a local, and an object expression's members have no
; type of their own to belong to. This grammar reads a property right before the body's `}`
; (`object O { val x = 1 }`) as an error holding the property.
[
  (source_file
    (property_declaration
      (variable_declaration (simple_identifier) @name)) @definition.property)
  (class_declaration
    (class_body [
      (property_declaration
        (variable_declaration (simple_identifier) @name)) @definition.property
      (ERROR
        (property_declaration
          (variable_declaration (simple_identifier) @name)) @definition.property)
    ]))
  (class_declaration
    (enum_class_body [
      (property_declaration
        (variable_declaration (simple_identifier) @name)) @definition.property
      (ERROR
        (property_declaration
          (variable_declaration (simple_identifier) @name)) @definition.property)
    ]))
  (object_declaration
    (class_body [
      (property_declaration
        (variable_declaration (simple_identifier) @name)) @definition.property
      (ERROR
        (property_declaration
          (variable_declaration (simple_identifier) @name)) @definition.property)
    ]))
  (companion_object
    (class_body [
      (property_declaration
        (variable_declaration (simple_identifier) @name)) @definition.property
      (ERROR
        (property_declaration
          (variable_declaration (simple_identifier) @name)) @definition.property)
    ]))
]

(class_parameter
  (binding_pattern_kind)
  (simple_identifier) @name) @definition.property

(enum_entry
  (simple_identifier) @name) @definition.enum_member

(type_alias
  (type_identifier) @name) @definition.type_parameter
