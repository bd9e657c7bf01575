package dev.fencedlock.internal.binding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ThreadLease} through a binder registered for these tests in META-INF/services. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThreadLeaseTest {
    /** Records what is bound and closed, in order. */
    public static final class RecordingBinder implements ThreadLeaseBinder {
        static final List<String> EVENTS = new CopyOnWriteArrayList<>();

        @Override
        public AutoCloseable bind(Lease lease) {
            EVENTS.add("bind " + lease.token() + " on " + Thread.currentThread().getName());
            return () -> EVENTS.add(
                    "close " + lease.token() + " on " + Thread.currentThread().getName());
        }
    }

    @Test
    void bindsThroughTheBinderAndClosesOnceOnTheOwningThreadOnly() throws Exception {
        try (LockClient client =
                        LockClient.create(LockConfig.builder().backend("local").build());
                Lease lease = client.lock("thread-lease:" + System.nanoTime()).acquire(Duration.ofSeconds(5))) {
            RecordingBinder.EVENTS.clear();
            String me = Thread.currentThread().getName();
            ThreadLease binding = ThreadLease.bind(lease);
            Thread other = new Thread(binding::close, "another-thread");
            other.start();
            other.join(10_000);
            assertThat(RecordingBinder.EVENTS)
                    .as("closed on another thread: the binding stays")
                    .containsExactly("bind " + lease.token() + " on " + me);
            binding.close();
            binding.close();
            assertThat(RecordingBinder.EVENTS)
                    .containsExactly("bind " + lease.token() + " on " + me, "close " + lease.token() + " on " + me);
        }
        ThreadLease.NONE.close();
    }
}
