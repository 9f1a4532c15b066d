; Verilog and SystemVerilog definitions: modules with their ports, parameters and signals
; (nets and variables); interfaces, packages and classes (with their properties and
; methods); functions and tasks; types (`typedef struct` is a struct, `typedef enum` an enum
; with its members, anything else a type_parameter); and parameters (`parameter`,
; `localparam`) as constants.

(module_declaration
  (module_header (simple_identifier) @name)) @definition.module

(interface_declaration
  [
    (interface_ansi_header (interface_identifier (simple_identifier) @name))
    (interface_nonansi_header (interface_identifier (simple_identifier) @name))
  ]) @definition.interface

(package_declaration
  (package_identifier (simple_identifier) @name)) @definition.namespace

(class_declaration
  (class_identifier (simple_identifier) @name)) @definition.class

(function_declaration
  (function_body_declaration (function_identifier) @name)) @definition.function

(task_declaration
  (task_body_declaration (task_identifier) @name)) @definition.function

(type_declaration
  (data_type)
  (simple_identifier) @name) @definition.type_parameter

(type_declaration
  (data_type (struct_union))
  (simple_identifier) @name) @definition.struct

(type_declaration
  (data_type (enum_name_declaration))
  (simple_identifier) @name) @definition.enum

(enum_name_declaration
  (enum_identifier (simple_identifier) @name)) @definition.enum_member

(param_assignment
  (parameter_identifier (simple_identifier) @name)) @definition.constant

(ansi_port_declaration
  (port_identifier (simple_identifier) @name)) @definition.field

(class_property
  (data_declaration
    (list_of_variable_decl_assignments
      (variable_decl_assignment . (simple_identifier) @name)))) @definition.field

(package_or_generate_item_declaration
  (data_declaration
    (list_of_variable_decl_assignments
      (variable_decl_assignment . (simple_identifier) @name)))) @definition.variable

(package_or_generate_item_declaration
  (net_declaration
    (list_of_net_decl_assignments
      (net_decl_assignment . (simple_identifier) @name)))) @definition.variable

; Ports declared in the body of a Verilog-1995 style module (`input clk;`).
(port_declaration
  (_ (_ (port_identifier (simple_identifier) @name)))) @definition.field
