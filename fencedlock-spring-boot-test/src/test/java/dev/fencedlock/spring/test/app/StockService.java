package dev.fencedlock.spring.test.app;

import dev.fencedlock.spring.Locked;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class StockService {
    private final StockItems items;

    private final AtomicInteger bodies = new AtomicInteger();

    StockService(StockItems items) {
        this.items = items;
    }

    @Locked("'stock:' + #sku")
    @Transactional
    public void restock(String sku, int quantity) {
        items.findById(sku).ifPresentOrElse(item -> item.set(quantity), () -> items.save(new StockItem(sku, quantity)));
    }

    /** How many calls of {@link #take} reached the method body. */
    public int bodies() {
        return bodies.get();
    }

    public void resetBodies() {
        bodies.set(0);
    }

    @Locked(value = "'stock:' + #sku", leaseTime = "2s")
    @Transactional
    public int take(String sku, int units) {
        bodies.incrementAndGet();
        StockItem item = items.findById(sku).orElseThrow();
        item.take(units);
        return item.quantity();
    }
}
