package dev.fencedlock.zookeeper;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What one client last knew of its token nodes ({@link LockTokens.Record}, by token path): the
 * state after its own last write or read of each, so that an acquisition of a lock that no other
 * client wrote meanwhile needs no read before its create. Only a hint: the create's transaction
 * checks the token node's version, and a stale or missing hint costs one read and, if stale, one
 * failed transaction.
 *
 * <p>Bounded: at most {@value #MAX_ENTRIES} lock names are remembered; past that, an arbitrary
 * entry is forgotten for each new one.
 *
 * <p>Thread-safety: thread-safe.
 */
final class TokenHints {
    static final int MAX_ENTRIES = 1024;

    private final ConcurrentMap<String, LockTokens.Record> hints = new ConcurrentHashMap<>();

    /** The last known state of the token node at {@code tokenPath}; null if none is known. */
    LockTokens.Record get(String tokenPath) {
        return hints.get(tokenPath);
    }

    /** Remembers the state of a token node after a write or read. */
    void remember(String tokenPath, LockTokens.Record record) {
        if (hints.size() >= MAX_ENTRIES && !hints.containsKey(tokenPath)) {
            Iterator<String> any = hints.keySet().iterator();
            if (any.hasNext()) {
                hints.remove(any.next());
            }
        }
        hints.put(tokenPath, record);
    }

    /** Forgets the state of a token node, which turned out to be stale. */
    void forget(String tokenPath) {
        hints.remove(tokenPath);
    }

    int size() {
        return hints.size();
    }
}
