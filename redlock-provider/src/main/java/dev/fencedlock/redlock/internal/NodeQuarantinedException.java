package dev.fencedlock.redlock.internal;

/**
 * Why a node that answered did not count toward a quorum: it restarted (or is new to this client)
 * too recently, and may have forgotten locks that are still valid elsewhere.
 */
final class NodeQuarantinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NodeQuarantinedException(String message) {
        super(message, null, false, false);
    }
}
