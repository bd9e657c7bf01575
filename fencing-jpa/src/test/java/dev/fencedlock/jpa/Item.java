package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A fenced entity with nothing but the fence: no version of its own. */
@Entity
@Table(name = "fenced_item")
@EntityListeners(FencingListener.class)
public class Item {
    @Id
    private long id;

    private String sku;

    private int quantity;

    @FencingToken
    private long fence;

    protected Item() {}

    public Item(long id, String sku, int quantity) {
        this.id = id;
        this.sku = sku;
        this.quantity = quantity;
    }

    public long id() {
        return id;
    }

    public int quantity() {
        return quantity;
    }

    public void take(int amount) {
        quantity -= amount;
    }

    public long fence() {
        return fence;
    }

    void overwriteFence(long value) {
        fence = value;
    }
}
