package dev.fencedlock.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.spring.FencedWriteRefusedException;
import dev.fencedlock.spring.test.app.StockApplication;
import dev.fencedlock.spring.test.app.StockItems;
import dev.fencedlock.spring.test.app.StockService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A user's test of a {@code @Locked @Transactional} JPA service, as the docs show it: JPA with
 * {@code ddl-auto}, H2, no fencedlock migrations, no sleeping.
 */
@SpringBootTest(classes = StockApplication.class)
@FencedLockTest
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedLockTestIT {
    @Autowired
    StockService stock;

    @Autowired
    StockItems items;

    @Autowired
    LockFaults faults;

    @Autowired
    LockClient client;

    @BeforeEach
    void stockUp() {
        stock.restock("sku-1", 10);
        stock.resetBodies();
    }

    @AfterEach
    void disarm() {
        faults.reset();
    }

    @Test
    void theLocalBackendAndTheFenceTableAreThereWithoutConfiguration() {
        assertThat(client.config().backend()).isEqualTo("local");
        assertThat(stock.take("sku-1", 3)).isEqualTo(7);
        assertThat(quantity()).isEqualTo(7);
    }

    @Test
    void aLeaseThatExpiresBeforeCommitKeepsNothing() {
        faults.leaseExpiresBeforeCommit("stock:sku-1");
        assertThatThrownBy(() -> stock.take("sku-1", 3))
                .isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
                    assertThat(refused.lockName()).isEqualTo("stock:sku-1");
                    assertThat(refused.newerToken()).isEmpty();
                });
        assertThat(stock.bodies()).isEqualTo(1);
        assertThat(quantity()).isEqualTo(10);
        // struck once: the next call is not touched
        assertThat(stock.take("sku-1", 3)).isEqualTo(7);
    }

    @Test
    void aNewerHolderThatWroteFirstGetsTheCallRefusedByTheDatabase() {
        faults.newerHolderWritesFirst("stock:sku-1");
        assertThatThrownBy(() -> stock.take("sku-1", 3))
                .isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
                    assertThat(refused.lockName()).isEqualTo("stock:sku-1");
                    assertThat(refused.newerToken()).isPresent();
                    assertThat(refused.newerToken().getAsLong()).isGreaterThan(refused.token());
                });
        assertThat(stock.bodies()).as("refused before the method body").isZero();
        assertThat(quantity()).isEqualTo(10);
        assertThat(stock.take("sku-1", 3)).isEqualTo(7);
    }

    @Test
    void faultsOfOtherLocksLeaveThisOneAlone() {
        faults.newerHolderWritesFirst("stock:sku-2");
        faults.leaseExpiresBeforeCommit("stock:sku-3");
        assertThat(stock.take("sku-1", 3)).isEqualTo(7);
    }

    private int quantity() {
        return items.findById("sku-1").orElseThrow().quantity();
    }
}
