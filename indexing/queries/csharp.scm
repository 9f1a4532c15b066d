; C# definitions: namespaces, types of every sort (each `partial` part where it is written),
; members, and enum members.

(namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type_parameter

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(property_declaration
  name: (identifier) @name) @definition.property

(event_declaration
  name: (identifier) @name) @definition.property

(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name))) @definition.field

(event_field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name))) @definition.field

(enum_member_declaration
  name: (identifier) @name) @definition.enum_member
