package dev.fencedlock.jpa;

import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.annotations.OptimisticLock;

/**
 * A fenced entity with its version and three collection tables. The collections are excluded from
 * optimistic locking, so that changing them does not update the item's row: their own statements
 * must then be fenced (or refused) by themselves.
 */
@Entity
@Table(name = "fenced_item")
@EntityListeners(FencingListener.class)
public class Item {
    @Id
    private long id;

    private String sku;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;

    @ElementCollection(fetch = FetchType.EAGER)
    @CollectionTable(name = "item_tag", joinColumns = @JoinColumn(name = "item_id"))
    @Column(name = "tag")
    @OptimisticLock(excluded = true)
    private Set<String> tags = new HashSet<>();

    @ManyToMany(fetch = FetchType.EAGER)
    @JoinTable(
            name = "item_label",
            joinColumns = @JoinColumn(name = "item_id"),
            inverseJoinColumns = @JoinColumn(name = "label_id"))
    @OptimisticLock(excluded = true)
    private Set<Label> labels = new HashSet<>();

    @OneToMany(fetch = FetchType.EAGER)
    @JoinTable(
            name = "item_note",
            joinColumns = @JoinColumn(name = "item_id"),
            inverseJoinColumns = @JoinColumn(name = "note_id"))
    @OptimisticLock(excluded = true)
    private Set<Note> notes = new HashSet<>();

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

    public long version() {
        return version;
    }

    public Set<String> tags() {
        return tags;
    }

    public Set<Label> labels() {
        return labels;
    }

    public Set<Note> notes() {
        return notes;
    }
}
