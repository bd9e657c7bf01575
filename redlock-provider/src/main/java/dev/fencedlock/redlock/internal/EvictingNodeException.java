package dev.fencedlock.redlock.internal;

/**
 * Why a node that answered does not count toward any quorum: its {@code maxmemory-policy} lets it
 * evict keys that have not expired, so a held lock key or a token counter could vanish under memory
 * pressure.
 */
final class EvictingNodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    EvictingNodeException(String policy) {
        super(
                "maxmemory-policy " + policy + " can evict lock keys and token counters; set maxmemory-policy"
                        + " noeviction (or maxmemory 0) on this node",
                null,
                false,
                false);
    }
}
