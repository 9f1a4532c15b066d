; What JavaScript and TypeScript share (TypeScript's grammar extends JavaScript's): classes,
; functions in every form that binds a name, methods, constructors and top-level values.
; javascript.toml and typescript.toml extend this file; neither copies it.

(class_declaration
  name: (_) @name) @definition.class

; A named class expression: `const A = class B {}` defines B too.
(class
  name: (_) @name) @definition.class

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
  (function_expression name: (identifier) @name)
  (generator_function name: (identifier) @name)
] @definition.function

; The members of an object assigned to a prototype are the constructor's methods:
; `Emitter.prototype = { on: function (event, fn) {}, off(event) {} }`. Before the plain
; method pattern, which would otherwise win `off` for want of its scope.
(assignment_expression
  left: (member_expression
    object: (identifier) @scope
    property: (property_identifier) @_prototype)
  right: (object
    [(pair
       key: (property_identifier) @name
       value: [(arrow_function) (function_expression)])
     (method_definition
       name: (property_identifier) @name)] @definition.method)
  (#eq? @_prototype "prototype"))

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; Outranks the method pattern above (see _KIND_RANK in the extractor).
(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.constructor

; Functions bound to names: `const f = (x) => ...`, `let g = function () {}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; A function assigned to a prototype is a method of the constructor it names:
; `Layer.prototype.match = function match(path) {}` is `Layer.match`.
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @scope
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]
  (#eq? @_prototype "prototype")) @definition.method

; A class bound to a name is that class: `const Store = class { get(key) {} }`.
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

; A function assigned to a property of a named object belongs to it: `app.init = function
; init() {}` is `app.init`, as a Lua `M.f = function` is `M.f`. Not the module's own
; `exports` or a global (`window`), which name no object a reader would search by
; (`#not-any-of?` is not applied by this tree-sitter: a match is kept whatever it says).
; Through a chain of assignments too: `res.contentType = res.type = function contentType()`
; names it `res.contentType` as well as `res.type`.
(assignment_expression
  left: (member_expression
    object: (identifier) @scope
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)
          (assignment_expression right: [(arrow_function) (function_expression)])]
  (#not-match? @scope "^(exports|module|self|window|globalThis)$")) @definition.function

; Functions assigned to a name or a property: `exports.f = function () {}`, `a.b = () => {}`.
(assignment_expression
  left: [(identifier) @name (member_expression property: (property_identifier) @name)]
  right: [(arrow_function) (function_expression)]) @definition.function

; Functions as object properties: `{ handle: () => {} }`.
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; Top-level values: `export const registry = {...}`, `let cache = new Map()`, `var x = 1`.
; A name bound to a function is still a function: the function pattern outranks these.
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name) @definition.constant))
(program
  (export_statement
    (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))
(program
  (lexical_declaration
    kind: "let"
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    (lexical_declaration
      kind: "let"
      (variable_declarator name: (identifier) @name) @definition.variable)))
(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
(program
  (export_statement
    (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))

; A CommonJS module's exported values: `exports.etag = createETagGenerator(...)`,
; `module.exports.version = "1.0"`. One bound to a function is a function (above).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @_exports
        property: (property_identifier) @name)
      (#eq? @_exports "exports")) @definition.variable))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (member_expression
          object: (identifier) @_module
          property: (property_identifier) @_exports)
        property: (property_identifier) @name)
      (#eq? @_module "module")
      (#eq? @_exports "exports")) @definition.variable))
