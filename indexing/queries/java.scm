; Java definitions: types of every sort, methods, constructors, fields and enum constants.

(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.class

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

(enum_constant
  name: (identifier) @name) @definition.enum_member

; The elements of an annotation type: `String value() default "";`.
(annotation_type_element_declaration
  name: (identifier) @name) @definition.method
