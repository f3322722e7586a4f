/// A value kept behind one reference: a large value that is rarely set (a download's files, a
/// retried download's plan) costs a pointer, not its size, in every copy of the struct holding it.
final class ImmutableBox<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
