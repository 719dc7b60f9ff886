; References in PHP. refs.py reads `$this`, `self`, `static` and `parent` as the enclosing
; class (`parent` as its base); `use A\B\C [as D]` is an import of C from A\B; a class's
; `use Loggable;` takes a trait's methods in (read as `implements`).
(function_call_expression function: [(name) (qualified_name)] @call.name)
(member_call_expression object: (_) @call.receiver name: (name) @call.name)
(nullsafe_member_call_expression object: (_) @call.receiver name: (name) @call.name)
(scoped_call_expression scope: (_) @call.receiver name: (name) @call.name)
(object_creation_expression [(name) (qualified_name)] @call.name)
(namespace_use_clause . [(name) (qualified_name)] @import.module alias: (name)? @import.alias)
(base_clause [(name) (qualified_name)] @extends.name)
(class_interface_clause [(name) (qualified_name)] @implements.name)
(use_declaration [(name) (qualified_name)] @implements.name)
; What a name holds: a typed parameter, `$x = new Foo()`.
(simple_parameter type: (named_type [(name) (qualified_name)] @type.name) name: (variable_name) @type.var)
(simple_parameter type: (optional_type (named_type [(name) (qualified_name)] @type.name)) name: (variable_name) @type.var)
(assignment_expression left: (variable_name) @type.var right: (object_creation_expression [(name) (qualified_name)] @type.class))
; A class's typed property (`private Client $client;`) and a constructor's promoted one, for
; `$this->client->send()` (@type.attr: refs.py reads it as `this.client`).
(property_declaration type: [(named_type [(name) (qualified_name)] @type.name)
                             (optional_type (named_type [(name) (qualified_name)] @type.name))]
  (property_element (variable_name (name) @type.attr)))
(property_promotion_parameter type: [(named_type [(name) (qualified_name)] @type.name)
                                     (optional_type (named_type [(name) (qualified_name)] @type.name))]
  name: (variable_name (name) @type.attr))
; What a function or method says it returns (`: static`, `: ?Foo`).
(method_declaration return_type: [(named_type [(name) (qualified_name)] @returns.name)
                                  (optional_type (named_type [(name) (qualified_name)] @returns.name))])
(function_definition return_type: [(named_type [(name) (qualified_name)] @returns.name)
                                   (optional_type (named_type [(name) (qualified_name)] @returns.name))])
