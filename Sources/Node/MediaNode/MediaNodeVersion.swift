/// The node's version, as published in `P/info`.
public enum MediaNodeVersion {
    public static let string = "0.1.0"
}
