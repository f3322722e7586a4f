import Foundation

/// The flights of identical requests as a value (single flight): joining, leaving and landing are
/// events; the answer says who sends and who is told what. Tested as a table in
/// `CoalescingStateTests`.
///
/// The first member to join a key leads: a new flight starts, and the caller sends one transfer for
/// it. Later members with the same key follow that flight while it is in the air. A member may leave
/// (it was cancelled); when the last one leaves, the flight is grounded — its transfer should be
/// cancelled — and a new member with that key starts a new flight. When the transfer ends, the flight
/// lands and every member still aboard gets the result.
struct CoalescingState<Member: Identifiable>: Sendable where Member: Sendable, Member.ID: Sendable {
    /// One flight: its number and the members aboard, in the order they joined.
    struct Flight: Sendable {
        let number: Int
        var members: [Member]
    }

    /// How a member joined.
    enum Joined: Equatable, Sendable {
        /// It starts flight `number`: send the transfer.
        case lead(flight: Int)
        /// It rides flight `number`, already in the air: send nothing.
        case follow(flight: Int)
    }

    /// A member left flight `flight`; `grounded` when it was the last one aboard.
    struct Left: Equatable, Sendable {
        let flight: Int
        let grounded: Bool
    }

    private(set) var flights: [String: Flight] = [:]
    /// The key of each flight in the air (or grounded and not landed yet: `nil` key).
    private var keys: [Int: String] = [:]
    private var aboard: [Member.ID: Int] = [:]
    private var nextNumber = 1

    /// `member` wants to send a request with `key`.
    mutating func join(_ member: Member, key: String) -> Joined {
        if var flight = flights[key] {
            flight.members.append(member)
            flights[key] = flight
            aboard[member.id] = flight.number
            return .follow(flight: flight.number)
        }
        let number = nextNumber
        nextNumber += 1
        flights[key] = Flight(number: number, members: [member])
        keys[number] = key
        aboard[member.id] = number
        return .lead(flight: number)
    }

    /// The member with `id` leaves its flight; `nil` when it is on none (already landed).
    mutating func leave(_ id: Member.ID) -> Left? {
        guard let number = aboard.removeValue(forKey: id), let key = keys[number], var flight = flights[key],
              flight.number == number else { return nil }
        flight.members.removeAll { $0.id == id }
        guard flight.members.isEmpty else {
            flights[key] = flight
            return Left(flight: number, grounded: false)
        }
        flights[key] = nil
        return Left(flight: number, grounded: true)
    }

    /// Flight `number`'s transfer ended: the members still aboard, to be told (none when grounded).
    mutating func land(_ number: Int) -> [Member] {
        guard let key = keys.removeValue(forKey: number) else { return [] }
        guard let flight = flights[key], flight.number == number else { return [] }
        flights[key] = nil
        for member in flight.members { aboard[member.id] = nil }
        return flight.members
    }
}
