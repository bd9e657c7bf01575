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

    public FencedLockEndpoint(LockClient client, HeldLeases leases) {
        this.client = client;
        this.leases = leases;
    }

    /**
     * The endpoint's answer.
     *
     * @param leases the leases held now, oldest first; empty when none is held
     * @param backends the configured backend first, then {@code fencedlock.fallback}'s if configured
     */
    public record Report(List<HeldLeases.Held> leases, List<BackendStatus> backends) {}

    @ReadOperation
    public Report fencedLock() {
        return new Report(leases.snapshot(), client.status());
    }
}
