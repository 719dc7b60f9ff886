; References in Python. Captures: @call.name/@call.receiver, @import.module/.name/.alias,
; @extends.name (see mindex/parse/refs.py).
(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))
(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name)
(import_from_statement module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends.name))
