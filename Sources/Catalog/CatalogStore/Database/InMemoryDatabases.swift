import Dispatch
import GRDB

/// Where every database held in memory (the fleet rig's catalogs and states) runs its accesses.
///
/// A GRDB queue makes a serial dispatch queue of its own, and dispatch gives each such queue with work waiting
/// a thread of its own (serial queues overcommit): a rig of 10,000 nodes, two databases each, ran 264 threads,
/// most of them waiting for one of two cores. Targeted at one concurrent queue, they share dispatch's pool of
/// about a thread per core, and each stays serial.
enum InMemoryDatabases {
    static let sharedQueue = DispatchQueue(label: "medianode.databases-in-memory", qos: .userInitiated,
                                           attributes: .concurrent)

    static func configuration(_ base: Configuration = Configuration()) -> Configuration {
        var configuration = base
        configuration.targetQueue = sharedQueue
        return configuration
    }
}
