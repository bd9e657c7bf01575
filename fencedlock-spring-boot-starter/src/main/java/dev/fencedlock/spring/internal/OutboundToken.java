package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingKey;
import dev.fencedlock.Lease;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@value FencingHeader#NAME} value an outbound call carries: the tokens of the leases bound to
 * the calling thread ({@code @Locked}, {@code FencedTransactions}, {@code CurrentLease.bind}, and
 * through it ShedLock and Spring Integration locks), signed when a key is configured. A lease that
 * is no longer valid refuses the call. Immutable and thread-safe.
 */
final class OutboundToken {
    private final FencingKey key;

    /** @param key the key every value is signed with; null for unsigned values */
    OutboundToken(FencingKey key) {
        this.key = key;
    }

    /**
     * The leases bound to the calling thread, one per lock (the innermost binding's), outermost
     * first; empty outside any.
     */
    static List<Lease> bound() {
        return ActiveLease.carried();
    }

    /**
     * The value carrying the tokens of {@code leases}; empty when there is none. Checks each lease's
     * validity now, so call it right before the request leaves.
     *
     * @param method the request's method, for the refusal's message
     * @param uri the request's URI, for the refusal's message (its query and user info are left out)
     * @throws FenceRefusedException {@link FenceRefusedException.Reason#LEASE_NOT_VALID} naming the
     *     first lease that is no longer valid
     * @throws IllegalArgumentException if the value would exceed {@value FencingHeader#MAX_LOCKS}
     *     locks or {@value FencingHeader#MAX_LENGTH} characters
     */
    Optional<String> valueFor(List<Lease> leases, String method, URI uri) {
        if (leases.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (Lease lease : leases) {
            if (!lease.isValid()) {
                throw new FenceRefusedException(
                        FenceRefusedException.Reason.LEASE_NOT_VALID,
                        lease.lockName(),
                        lease.token(),
                        null,
                        "before the HTTP request " + method + " " + withoutQuery(uri)
                                + " carrying its token was sent; nothing was sent",
                        null);
            }
            tokens.put(lease.lockName(), lease.token());
        }
        return Optional.of(key == null ? FencingHeader.encode(tokens) : FencingHeader.encode(key, tokens));
    }

    private static String withoutQuery(URI uri) {
        if (uri.getHost() == null) {
            return String.valueOf(uri.getPath());
        }
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    @Override
    public String toString() {
        return "OutboundToken[" + (key == null ? "unsigned" : "signed with " + key) + "]";
    }
}
