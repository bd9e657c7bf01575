package dev.fencedlock.jpa;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Binding leases to threads: nesting, closing order, isolation between threads. */
class FencingScopeTest {
    private LockClient client;
    private Lease outer;
    private Lease inner;

    @BeforeEach
    void acquire() throws InterruptedException {
        client = LockClient.create(LockConfig.builder().backend("local").build());
        outer = lock().acquire(Duration.ofSeconds(5));
        inner = lock().acquire(Duration.ofSeconds(5));
    }

    @AfterEach
    void release() {
        client.close();
    }

    @Test
    void nothingIsBoundOutsideAScope() {
        assertThat(Fencing.currentLease()).isEmpty();
        try (FencingScope scope = Fencing.bind(outer)) {
            assertThat(scope.lease()).isSameAs(outer);
            assertThat(Fencing.currentLease()).containsSame(outer);
        }
        assertThat(Fencing.currentLease()).isEmpty();
    }

    @Test
    void theInnermostBindingAppliesAndClosingItRestoresTheOuterOne() {
        try (FencingScope outerScope = Fencing.bind(outer)) {
            try (FencingScope innerScope = Fencing.bind(inner)) {
                assertThat(Fencing.currentLease()).containsSame(innerScope.lease());
            }
            assertThat(Fencing.currentLease()).containsSame(outerScope.lease());
        }
        assertThat(Fencing.currentLease()).isEmpty();
    }

    @Test
    void theSameLeaseMayBeBoundTwice() {
        FencingScope first = Fencing.bind(outer);
        FencingScope second = Fencing.bind(outer);
        second.close();
        assertThat(Fencing.currentLease()).containsSame(first.lease());
        first.close();
        assertThat(Fencing.currentLease()).isEmpty();
    }

    @Test
    void closingAnOuterScopeFirstIsRefusedAndChangesNothing() {
        FencingScope outerScope = Fencing.bind(outer);
        FencingScope innerScope = Fencing.bind(inner);
        assertThatThrownBy(outerScope::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("innermost first")
                .hasMessageContaining(inner.lockName());
        assertThat(Fencing.currentLease()).containsSame(inner);
        innerScope.close();
        outerScope.close();
        assertThat(Fencing.currentLease()).isEmpty();
    }

    @Test
    void closeIsIdempotent() {
        FencingScope scope = Fencing.bind(outer);
        scope.close();
        scope.close();
        assertThat(Fencing.currentLease()).isEmpty();
    }

    @Test
    void bindingsBelongToTheirThread() throws Exception {
        FencingScope scope = Fencing.bind(outer);
        try {
            AtomicReference<Object> seenElsewhere = new AtomicReference<>();
            CompletableFuture.runAsync(() -> seenElsewhere.set(Fencing.currentLease()))
                    .get(10, SECONDS);
            assertThat(seenElsewhere.get()).isEqualTo(Optional.empty());

            Throwable closedElsewhere = CompletableFuture.supplyAsync(() -> {
                        try {
                            scope.close();
                            return null;
                        } catch (IllegalStateException e) {
                            return e;
                        }
                    })
                    .get(10, SECONDS);
            assertThat(closedElsewhere).isInstanceOf(IllegalStateException.class);
            assertThat(Fencing.currentLease()).containsSame(outer);
        } finally {
            scope.close();
        }
    }

    @Test
    void aNullLeaseIsRejected() {
        assertThatThrownBy(() -> Fencing.bind(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
    }

    private FencedLock lock() {
        return client.lock("fencing-scope-test/" + UUID.randomUUID());
    }
}
