; Supplements tree-sitter-go's tags.scm, which reports every type as a bare "type".

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_alias
  name: (type_identifier) @name) @definition.type_parameter

; Package-level constants and variables (not locals inside functions).
(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))
