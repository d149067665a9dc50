// Command blog is the blog of the NoSQL data-modeling article (shared
// seed 004): users, categories and posts stored as hashes, with a
// category index and a time index kept in step on every write, and the
// article's queries: the categories of a user, "posts in category IT"
// and "posts between two dates", newest first.
//
// The article writes every ZADD by hand (ZADD user:1000:category.index 1
// P0001, ZADD user:1000:time.index 1521080087 P0001) and must remember
// to fix them when a post changes; here the indexes are declared once and
// index.Collection keeps them atomically in step with the objects.
//
//	go run ./examples/blog                       # embedded database
//	go run ./examples/blog -addr 127.0.0.1:6379  # ordo-server or Redis
//
// Against a server it writes keys under {blog:users}, {blog:categories}
// and {blog:posts} and leaves them there.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/index"
)

// DateLayout is the article's date format: '2018-03-14:09:10:20'.
const DateLayout = "2006-01-02:15:04:05"

// Blog is the data model: three collections and their indexes.
type Blog struct {
	Users, Categories, Posts *index.Collection
}

// New declares the collections on b.
func New(b backend.Backend) *Blog {
	str := func(name string) index.Field { return index.Field{Name: name, Type: index.String} }
	num := func(name string) index.Field { return index.Field{Name: name, Type: index.Int} }
	return &Blog{
		Users: index.NewCollection(b, "blog:users"),
		// "select categoryID, name from Category where userID=?", by name.
		Categories: index.NewCollection(b, "blog:categories",
			index.CompositeIndex("user", str("user"), str("name"))),
		Posts: index.NewCollection(b, "blog:posts",
			// user:1000:category.index, ordered by time within a category.
			index.CompositeIndex("category", str("user"), num("categoryID"), num("ts")),
			// user:1000:time.index.
			index.CompositeIndex("time", str("user"), num("ts"))),
	}
}

// Post is a blog post as the application sees it.
type Post struct {
	ID, User, Category, Title, Contents string
	Date                                time.Time
}

func (bl *Blog) categoryID(ctx context.Context, user, name string) (string, error) {
	docs, err := bl.Categories.Find(ctx, "user", index.Where(user, name))
	if err != nil {
		return "", err
	}
	if len(docs) == 0 {
		return "", fmt.Errorf("blog: user %s has no category %q", user, name)
	}
	return docs[0].Fields["categoryID"], nil
}

// AddCategory creates category number id of user.
func (bl *Blog) AddCategory(ctx context.Context, user string, id int, name string) error {
	_, err := bl.Categories.Put(ctx, user+":"+strconv.Itoa(id), index.Object{
		"user": user, "categoryID": strconv.Itoa(id), "name": name,
	})
	return err
}

// PutPost stores (or rewrites) a post; its index entries follow.
func (bl *Blog) PutPost(ctx context.Context, p Post) error {
	cat, err := bl.categoryID(ctx, p.User, p.Category)
	if err != nil {
		return err
	}
	_, err = bl.Posts.Put(ctx, p.ID, index.Object{
		"user": p.User, "categoryID": cat, "categoryName": p.Category, // denormalized, as in the article
		"title": p.Title, "contents": p.Contents, "attachment": "[]",
		"date": p.Date.UTC().Format(DateLayout), "ts": strconv.FormatInt(p.Date.Unix(), 10),
	})
	return err
}

// CategoryNames returns the names of user's categories, in name order.
func (bl *Blog) CategoryNames(ctx context.Context, user string) ([]string, error) {
	docs, err := bl.Categories.Find(ctx, "user", index.Where(user))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.Fields["name"]
	}
	return names, nil
}

// PostsInCategory returns user's posts in the named category, newest first.
func (bl *Blog) PostsInCategory(ctx context.Context, user, category string) ([]index.Doc, error) {
	cat, err := bl.categoryID(ctx, user, category)
	if err != nil {
		return nil, err
	}
	return bl.Posts.Find(ctx, "category", index.Where(user, cat).Rev())
}

// PostsBetween returns user's posts written in [from, to), newest first.
func (bl *Blog) PostsBetween(ctx context.Context, user string, from, to time.Time) ([]index.Doc, error) {
	return bl.Posts.Find(ctx, "time", index.Where(user).Min(from.Unix()).Below(to.Unix()).Rev())
}

func date(s string) time.Time {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Load writes the article's data.
func (bl *Blog) Load(ctx context.Context) error {
	if _, err := bl.Users.Put(ctx, "1000", index.Object{"name": "user 1000"}); err != nil {
		return err
	}
	if err := bl.AddCategory(ctx, "1000", 1, "IT"); err != nil {
		return err
	}
	if err := bl.AddCategory(ctx, "1000", 2, "Daily"); err != nil {
		return err
	}
	for _, p := range []Post{
		{ID: "P0001", User: "1000", Category: "IT", Title: "NoSQL Modeling",
			Date: date("2018-03-14:09:10:20"), Contents: "NoSQL Modeling is very difficult."},
		{ID: "P0002", User: "1000", Category: "Daily", Title: "Post to watch Black Panther",
			Date: date("2018-03-15:12:30:10"), Contents: "Wakanda is very smart!"},
		{ID: "P0003", User: "1000", Category: "IT", Title: "Spring, Redis and Jedis",
			Date: date("2018-03-17:09:00:05"), Contents: "Jedis is redis for Java."},
	} {
		if err := bl.PutPost(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// Run loads the article's data and prints the answers to its queries.
func Run(ctx context.Context, b backend.Backend, w io.Writer) error {
	bl := New(b)
	if err := bl.Load(ctx); err != nil {
		return err
	}
	names, err := bl.CategoryNames(ctx, "1000")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Categories of user 1000: %v\n", names)
	show := func(title string, docs []index.Doc, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintln(w, title)
		for _, d := range docs {
			fmt.Fprintf(w, "  %s  %s  %-6s %s\n", d.ID, d.Fields["date"], d.Fields["categoryName"], d.Fields["title"])
		}
		return nil
	}
	docs, err := bl.PostsInCategory(ctx, "1000", "IT")
	if err := show("Posts in category IT, newest first:", docs, err); err != nil {
		return err
	}
	docs, err = bl.PostsBetween(ctx, "1000", date("2018-03-14:00:00:00"), date("2018-03-16:00:00:00"))
	return show("Posts from 2018-03-14 to 2018-03-15, newest first:", docs, err)
}

func main() {
	addr := flag.String("addr", "", "host:port of an ordo-server or Redis (default: an embedded database in a temporary directory)")
	flag.Parse()
	if err := run(context.Background(), *addr); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string) error {
	if addr != "" {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		return Run(ctx, goredis.New(c), os.Stdout)
	}
	dir, err := os.MkdirTemp("", "ordo-blog")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := ordo.Open(dir, &ordo.Options{InMemory: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return Run(ctx, db.Backend(), os.Stdout)
}
