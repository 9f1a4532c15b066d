; Terraform definitions: resources and data sources (named by their name, their type the
; scope: `aws_instance.web`, `data.aws_ami.ubuntu`), modules, input variables, outputs,
; providers, and the values of `locals` blocks.

(block
  (identifier) @_kind
  (string_lit (template_literal) @scope)
  (string_lit (template_literal) @name)
  (#eq? @_kind "resource")) @definition.object

(block
  (identifier) @scope @_kind
  (string_lit (template_literal) @scope)
  (string_lit (template_literal) @name)
  (#eq? @_kind "data")) @definition.object

(block
  (identifier) @_kind
  (string_lit (template_literal) @name)
  (#eq? @_kind "module")) @definition.module

(block
  (identifier) @_kind
  (string_lit (template_literal) @name)
  (#eq? @_kind "variable")) @definition.variable

(block
  (identifier) @_kind
  (string_lit (template_literal) @name)
  (#eq? @_kind "output")) @definition.property

(block
  (identifier) @_kind
  (string_lit (template_literal) @name)
  (#eq? @_kind "provider")) @definition.namespace

(block
  (identifier) @_kind
  (body (attribute (identifier) @name) @definition.constant)
  (#eq? @_kind "locals"))
