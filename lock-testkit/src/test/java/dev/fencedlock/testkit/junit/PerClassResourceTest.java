package dev.fencedlock.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PerClassResourceTest {
    private static final class Counted implements AutoCloseable {
        static final AtomicInteger OPEN = new AtomicInteger();

        Counted() {
            OPEN.incrementAndGet();
        }

        @Override
        public void close() {
            OPEN.decrementAndGet();
        }
    }

    @Test
    void theFixtureExistsOnlyBetweenBeforeAllAndAfterAll() throws Exception {
        PerClassResource<Counted> resource = PerClassResource.of(Counted::new);
        assertThatThrownBy(resource::get)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@RegisterExtension");
        int before = Counted.OPEN.get();
        resource.beforeAll(null);
        Counted fixture = resource.get();
        assertThat(resource.get()).isSameAs(fixture);
        assertThat(Counted.OPEN.get()).isEqualTo(before + 1);
        resource.afterAll(null);
        assertThat(Counted.OPEN.get()).isEqualTo(before);
        assertThatThrownBy(resource::get).isInstanceOf(IllegalStateException.class);
    }
}
