package dev.fencedlock.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The example's run, small, on the local backend: every invariant of the summary holds. */
@SpringBootTest(
        properties = {
            "fencedlock.backend=local",
            "inventory.workers=4",
            "inventory.skus=2",
            "inventory.stock=20",
            "spring.datasource.url=jdbc:h2:mem:inventory-it;DB_CLOSE_DELAY=-1"
        })
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InventorySpringAppIT {
    @Autowired
    InventoryRun run;

    @Test
    void everyInvariantHoldsAndTheStalledWriteIsRefused() throws Exception {
        assertThat(run.call()).isZero();
    }
}
