; References in C.
(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
(preproc_include path: (_) @import.module)
