; References in Java.
(method_invocation !object name: (identifier) @call.name)
(method_invocation object: (_) @call.receiver name: (identifier) @call.name)
(object_creation_expression type: (type_identifier) @call.name)
(import_declaration (scoped_identifier) @import.module)
(superclass (type_identifier) @extends.name)
(super_interfaces (type_list (type_identifier) @implements.name))
(extends_interfaces (type_list (type_identifier) @extends.name))
