package dev.fencedlock.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.spring.test.app.StockApplication;
import dev.fencedlock.spring.test.app.StockService;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same service on real Redis masters (in Docker containers when a Docker engine answers, local
 * {@code redis-server} processes otherwise), as docs/spring.md shows.
 */
@SpringBootTest(classes = StockApplication.class)
@FencedLockTest
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RealBackendIT {
    @RegisterExtension
    static final LockBackendExtension backend = LockBackendExtension.redlock(3);

    @DynamicPropertySource
    static void locks(DynamicPropertyRegistry registry) {
        backend.properties().forEach((key, value) -> registry.add(key, () -> value));
    }

    @Autowired
    StockService stock;

    @Autowired
    LockClient client;

    @Autowired
    LockFaults faults;

    @Test
    void theServiceRunsOnTheBackendTheTestChose() {
        assertThat(client.config().backend()).isEqualTo("redlock");
        stock.restock("sku-9", 5);
        assertThat(stock.take("sku-9", 2)).isEqualTo(3);
        assertThatThrownBy(() -> faults.newerHolderWritesFirst("stock:sku-9"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fencedlock.backend=local");
    }
}
