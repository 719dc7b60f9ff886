; References in C++.
(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name))
(preproc_include path: (_) @import.module)
(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name))
(new_expression type: (type_identifier) @call.name)
(base_class_clause (type_identifier) @extends.name)
(base_class_clause (qualified_identifier name: (type_identifier) @extends.name))
(base_class_clause (template_type name: (type_identifier) @extends.name))  ; `Base<T>`
(base_class_clause (qualified_identifier name: (template_type name: (type_identifier) @extends.name)))
