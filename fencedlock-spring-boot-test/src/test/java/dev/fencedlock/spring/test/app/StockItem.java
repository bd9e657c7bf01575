package dev.fencedlock.spring.test.app;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Version;

@Entity
@EntityListeners(FencingListener.class)
public class StockItem {
    @Id
    private String sku;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected StockItem() {}

    public StockItem(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    public int quantity() {
        return quantity;
    }

    void set(int quantity) {
        this.quantity = quantity;
    }

    void take(int units) {
        quantity -= units;
    }
}
