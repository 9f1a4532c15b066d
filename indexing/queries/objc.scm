; Objective-C beyond C's patterns, which come first (objc.toml extends c): interfaces,
; implementations, categories and protocols, their methods (named by their first selector
; part), and properties.

(class_interface
  . (identifier) @name) @definition.class

(class_implementation
  . (identifier) @name) @definition.class

(protocol_declaration
  . (identifier) @name) @definition.interface

(method_declaration
  (method_type) . (identifier) @name) @definition.method

(method_definition
  (method_type) . (identifier) @name) @definition.method

(property_declaration
  (struct_declaration (struct_declarator (identifier) @name))) @definition.property

(property_declaration
  (struct_declaration (struct_declarator (pointer_declarator declarator: (identifier) @name)))) @definition.property
