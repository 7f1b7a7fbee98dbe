import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide libmosquitto set-up and error text.
enum Mosquitto {
    /// mosquitto_lib_init is not thread-safe; a Swift global initializer runs exactly once.
    static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    static func describe(_ code: Int32) -> String {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            return String(cString: strerror(errno))
        }
        return String(cString: mosquitto_strerror(code))
    }

    /// Text for a CONNACK or DISCONNECT reason code, for either protocol version.
    static func reason(_ code: Int32, version: MQTTProtocolVersion) -> String {
        switch version {
        case .v5: String(cString: mosquitto_reason_string(code))
        case .v311: String(cString: mosquitto_connack_string(code))
        }
    }
}
