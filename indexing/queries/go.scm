; Go definitions: functions, methods (the extractor hangs them on their receiver's type, see
; go.toml), types by what they are, and package-level constants and variables.

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

; The methods a named interface declares (not those of an anonymous `interface{ M() }` in a
; parameter or field type, which would hang on the function or struct around it).
(type_spec
  type: (interface_type
    (method_elem name: (field_identifier) @name) @definition.method))

; Any other named type; after the two above, which win for the same name.
(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type_parameter

; Package-level constants and variables (not locals inside functions).
(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

; A grouped `var ( ... )` block keeps its specs in a list (a `const ( ... )` block does not).
(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.variable)))
