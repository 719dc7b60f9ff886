; References in Dart. Its grammar writes a call as a name followed by selectors (`c` `.send`
; `(x)`), no call node: a name, or `.name`, right before an argument list is a call.
(_ (identifier) @call.name . (selector (argument_part)))
(_ (identifier) @call.receiver . (selector (unconditional_assignable_selector (identifier) @call.name))
   . (selector (argument_part)))
(_ (this) . (selector (unconditional_assignable_selector (identifier) @call.name)) . (selector (argument_part)))
(_ (identifier) @call.receiver . (selector (conditional_assignable_selector (identifier) @call.name))
   . (selector (argument_part)))
; A call on what a call or a property gives, `Navigator.of(context).push(route)`, `x.y().z?.w()`:
; refs.py reads the receiver, all the chain before the name.
(_ (selector) . (selector [(unconditional_assignable_selector (identifier) @call.name)
                           (conditional_assignable_selector (identifier) @call.name)]) . (selector (argument_part)))
(import_specification (configurable_uri (uri (string_literal) @import.module)) . (identifier)? @import.alias)
(superclass (type_identifier) @extends.name)
(mixins (type_identifier) @implements.name)
(interfaces (type_identifier) @implements.name)
; What a name holds: a typed field, parameter or variable, `final w = Widget(...)`.
(declaration (type_identifier) @type.name (initialized_identifier_list (initialized_identifier (identifier) @type.var)))
(formal_parameter (type_identifier) @type.name (identifier) @type.var)
(local_variable_declaration (initialized_variable_definition (type_identifier) @type.name . (identifier) @type.var))
(initialized_variable_definition (identifier) @type.var . (identifier) @type.class . (selector (argument_part)))
; `final r = Router.of(x)`: what `of` returns (refs.py makes it a `result` reference)
(initialized_variable_definition (identifier) @type.var . (identifier) @type.head
  . (selector (unconditional_assignable_selector (identifier) @type.member)) . (selector (argument_part)) .)
; What a function says it returns (`Navigator of(...)`, `Future<int> load()`: a Future).
(function_signature . (type_identifier) @returns.name)
; A named constructor gives its class: `User.fromJson(json).toJson()`.
(constructor_signature (identifier) @returns.name . (identifier))
(constant_constructor_signature (identifier) @returns.name . (identifier))
(factory_constructor_signature (identifier) @returns.name . (identifier))
