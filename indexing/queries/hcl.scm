; HCL definitions (Nomad, Packer, Vault, ... configurations): every labelled block is a
; definition named by its last label, the labels before it its scope, the block type first
; (`job "web"` is `job.web`).

(block
  (identifier) @scope
  (string_lit (template_literal) @name) .
  (block_start)) @definition.object

(block
  (identifier) @scope
  (string_lit (template_literal) @scope)
  (string_lit (template_literal) @name) .
  (block_start)) @definition.object
