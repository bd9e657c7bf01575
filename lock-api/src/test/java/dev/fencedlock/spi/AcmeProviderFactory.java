package dev.fencedlock.spi;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.internal.local.LocalProviderFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A third backend as a provider author would write it, found through the test classpath's {@code
 * META-INF/services}: it proves that a backend's keys need no change to {@code lock-api}. It serves
 * the in-process {@code local} locks, and can be made to fail like an unreachable backend ({@link
 * #down}), for the fallback's tests.
 */
public final class AcmeProviderFactory implements LockProviderFactory {
    public static final String URL = "fencedlock.acme.url";
    public static final String TIMEOUT = "fencedlock.acme.timeout";
    public static final String PATH = "fencedlock.acme.path";

    /** While true, every acquisition on an acme lock throws {@link LockUnavailableException}. */
    public static volatile boolean down;

    /**
     * How many acquisitions reached an acme lock (also those that failed because it was down), the
     * fallback's probes of the primary not counted.
     */
    public static final AtomicInteger CALLS = new AtomicInteger();

    @Override
    public String backend() {
        return "acme";
    }

    @Override
    public Set<String> keys() {
        return Set.of(URL, TIMEOUT, PATH);
    }

    @Override
    public void validate(BackendSettings settings) {
        settings.positiveDuration(TIMEOUT);
        settings.get(URL).ifPresent(url -> {
            if (!url.startsWith("acme://")) {
                throw new IllegalArgumentException(
                        URL + " must start with acme://, got '" + BackendSettings.maskUri(url) + "'");
            }
        });
    }

    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        if (config.settings(backend()).get(URL).isEmpty()) {
            throw new IllegalArgumentException(URL + " is required for backend acme");
        }
        LockProvider local = new LocalProviderFactory().create(config, runtime);
        return new LockProvider() {
            @Override
            public FencedLock lock(String name) {
                return new Unreliable(local.lock(name));
            }

            @Override
            public void close() {
                local.close();
            }
        };
    }

    private record Unreliable(FencedLock lock) implements FencedLock {
        private FencedLock reachable() {
            if (!lock.name().startsWith("fencedlock:")) {
                CALLS.incrementAndGet();
            }
            if (down) {
                throw new LockUnavailableException(
                        lock.name(), Duration.ZERO, 1, 1, List.of(new NodeFailure("acme", new IOException("down"))));
            }
            return lock;
        }

        @Override
        public String name() {
            return lock.name();
        }

        @Override
        public Lease acquire(Duration wait) throws InterruptedException {
            return reachable().acquire(wait);
        }

        @Override
        public Lease acquire(Duration wait, Duration leaseTime) throws InterruptedException {
            return reachable().acquire(wait, leaseTime);
        }

        @Override
        public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
            return reachable().tryAcquire(wait);
        }

        @Override
        public Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
            return reachable().tryAcquire(wait, leaseTime);
        }
    }
}
