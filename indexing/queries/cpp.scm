; C++ beyond C's patterns, which come first (cpp.toml extends c): C's functions, structs,
; unions, enums, typedefs and macros hold for C++ too. Added here: methods, whole function
; definitions through any declarator (references, pointers), out-of-line methods with any
; scope, destructors and operators, namespaces, classes and `using` aliases.

(function_definition
  declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method

(function_definition
  declarator: (_ declarator: (function_declarator declarator: (identifier) @name)))
  @definition.function

(function_declarator
  declarator: (qualified_identifier name: (_) @name)) @definition.method

(function_declarator
  declarator: [(destructor_name) (operator_name)] @name) @definition.method

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

(class_specifier
  name: (type_identifier) @name
  body: (_)) @definition.class

(alias_declaration
  name: (type_identifier) @name) @definition.type_parameter

; Methods declared in a class body (`void f();`), or defined there through a pointer or
; reference declarator (`T* f() {}`); after the patterns above, which win for the same name.
(function_declarator
  declarator: (field_identifier) @name) @definition.method

; `K::~K() = default;` outside its class: this grammar reads it as an assignment to a call.
(expression_statement
  (assignment_expression
    left: (call_expression
      function: (qualified_identifier name: [(identifier) (destructor_name)] @name))
    right: (identifier) @_body
    (#any-of? @_body "default" "delete"))) @definition.method
