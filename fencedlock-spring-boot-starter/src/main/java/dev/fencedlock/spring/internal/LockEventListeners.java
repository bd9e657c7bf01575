package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@link LockEventListener} bean of the context as the client's one listener, in bean order.
 * The client logs and ignores what a listener throws; here one listener's failure must not keep the
 * next from being told, so each is called on its own.
 */
final class LockEventListeners implements LockEventListener {
    private static final Logger LOG = LoggerFactory.getLogger(LockEventListeners.class);

    private final List<LockEventListener> listeners;

    public LockEventListeners(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
        each(listener -> listener.acquireFinished(lockName, backend, outcome, elapsed));
    }

    @Override
    public void leaseGranted(Lease lease) {
        each(listener -> listener.leaseGranted(lease));
    }

    @Override
    public void leaseEnded(Lease lease) {
        each(listener -> listener.leaseEnded(lease));
    }

    @Override
    public void leaseLost(Lease lease, LeaseLostException cause) {
        each(listener -> listener.leaseLost(lease, cause));
    }

    @Override
    public void backendSwitched(String lockName, String from, String to, LockException cause) {
        each(listener -> listener.backendSwitched(lockName, from, to, cause));
    }

    private void each(Consumer<LockEventListener> event) {
        for (LockEventListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("LockEventListener {} failed; ignored", listener, e);
            }
        }
    }
}
