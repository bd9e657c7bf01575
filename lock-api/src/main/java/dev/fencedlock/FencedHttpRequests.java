package dev.fencedlock;

import dev.fencedlock.FenceRefusedException.Reason;
import java.net.http.HttpRequest;

/**
 * Puts the {@link FencingHeader} on a request of the JDK's {@link java.net.http.HttpClient}, for
 * senders outside Spring (the Spring Boot starter adds it to Spring's HTTP clients by itself):
 *
 * <pre>{@code
 * try (Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(10))) {
 *     HttpRequest request = FencedHttpRequests.withToken(HttpRequest.newBuilder(uri), lease)
 *             .POST(BodyPublishers.ofString(body))
 *             .build();
 *     http.send(request, BodyHandlers.ofString());
 * }
 * }</pre>
 *
 * <p>A lease that is no longer valid refuses the request before it is built, so nothing is sent
 * under it. Validity is checked when the header is set: build and send the request right after.
 * The receiving service still refuses the call if the lease ran out in between, because its fence
 * row holds the newer holder's token by then.
 *
 * <p>Stateless and thread-safe.
 */
public final class FencedHttpRequests {
    private FencedHttpRequests() {}

    /**
     * Sets the {@value FencingHeader#NAME} header of {@code request} to the tokens of {@code
     * leases}, replacing one already set.
     *
     * @return {@code request}
     * @throws FenceRefusedException {@link Reason#LEASE_NOT_VALID} if a lease is no longer valid;
     *     the header was not set
     * @throws IllegalArgumentException if {@code request} is null, or as {@link
     *     FencingHeader#encode(Lease...)}
     */
    public static HttpRequest.Builder withToken(HttpRequest.Builder request, Lease... leases) {
        return withToken(request, null, leases);
    }

    /**
     * Sets the header as {@link #withToken(HttpRequest.Builder, Lease...)} does, each token signed
     * with {@code key}.
     *
     * @throws FenceRefusedException {@link Reason#LEASE_NOT_VALID} if a lease is no longer valid
     * @throws IllegalArgumentException if {@code request} or {@code key} is null, or as {@link
     *     FencingHeader#encode(Lease...)}
     */
    public static HttpRequest.Builder withSignedToken(HttpRequest.Builder request, FencingKey key, Lease... leases) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        return withToken(request, key, leases);
    }

    private static HttpRequest.Builder withToken(HttpRequest.Builder request, FencingKey key, Lease... leases) {
        if (request == null) {
            throw new IllegalArgumentException("request must not be null");
        }
        String value = key == null ? FencingHeader.encode(leases) : FencingHeader.encode(key, leases);
        for (Lease lease : leases) {
            if (!lease.isValid()) {
                throw new FenceRefusedException(
                        Reason.LEASE_NOT_VALID,
                        lease.lockName(),
                        lease.token(),
                        null,
                        "before an HTTP request carrying its token was sent; nothing was sent",
                        null);
            }
        }
        return request.setHeader(FencingHeader.NAME, value);
    }
}
