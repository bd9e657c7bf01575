package dev.fencedlock.spring.actuate;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.LockClient;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code fencedlock} ({@code GET /actuator/fencedlock} once exposed): the
 * leases this instance holds ({@link HeldLeases}) and what each backend says about itself ({@link
 * LockClient#status()}, which takes up to about one node timeout per backend). Thread-safe.
 */
@Endpoint(id = "fencedlock")
public class FencedLockEndpoint {
    private final LockClient client;
    private final HeldLeases leases;

    FencedLockEndpoint(LockClient client, HeldLeases leases) {
        this.client = client;
        this.leases = leases;
    }

    /**
     * The endpoint's answer.
     *
     * @param leases the leases held now, oldest first; empty when none is held
     * @param backends the configured backend first, then {@code fencedlock.fallback}'s if configured
     */
    public record Report(List<HeldLease> leases, List<BackendStatus> backends) {}

    /**
     * One held lease.
     *
     * @param timeLeftMillis the lease's remaining validity ({@link dev.fencedlock.Lease#remaining()}),
     *     in milliseconds
     * @param since when it was granted (wall clock, ISO-8601)
     * @param thread the name of the thread that acquired it, which holds it unless the application
     *     handed the lease to another
     */
    public record HeldLease(
            String lockName, long token, String backend, long timeLeftMillis, String since, String thread) {}

    @ReadOperation
    public Report fencedLock() {
        return new Report(leases.snapshot(), client.status());
    }
}
