; References in Go.
(call_expression function: (identifier) @call.name)
(call_expression function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name))
(import_spec !name path: (interpreted_string_literal) @import.module)
(import_spec name: (package_identifier) @import.alias path: (interpreted_string_literal) @import.module)
