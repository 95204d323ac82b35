//! The README's "library in ten lines", kept compiling and true: the code below is the
//! README's (with the asset path made absolute and the `println!` into a string), the README
//! must contain it line for line, and the line it prints must be the one the README shows.

use raypick::prelude::*;

/// The README's example, as run below (checked against the README text).
const EXAMPLE: &str = r#"    let loaded = load_scene("assets/bunny.obj")?; // parse, check, build the BVHs
    let camera = Camera::look_at(Point3::new(0.0, 5.0, 25.0), Point3::new(0.0, 5.0, 0.0),
        Vector3::y(), Projection::perspective(0.7, 4.0 / 3.0, 0.1, 100.0), ClipConvention::OPENGL)?;
    let viewport = Viewport::new(800.0, 600.0);
    let options = PickOptions::new().with_snap_radius(8.0);
    let pick = loaded.scene.pick(&camera, &viewport, 400.0, 300.0, &options)?;
    if let Some(hit) = pick.and_then(|p| p.hit) {
        let object = loaded.object_of(hit.instance).expect("a file object");
        println!("object {object} triangle {:?} at {:?}", hit.triangle(), hit.point);
    }"#;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md")
}

/// The README's example, with `println!` writing into `out`.
fn run(bunny: &str, out: &mut Vec<String>) -> Result<Option<Pick>, raypick::Error> {
    let loaded = load_scene(bunny)?; // parse, check, build the BVHs
    let camera = Camera::look_at(
        Point3::new(0.0, 5.0, 25.0),
        Point3::new(0.0, 5.0, 0.0),
        Vector3::y(),
        Projection::perspective(0.7, 4.0 / 3.0, 0.1, 100.0),
        ClipConvention::OPENGL,
    )?;
    let viewport = Viewport::new(800.0, 600.0);
    let options = PickOptions::new().with_snap_radius(8.0);
    let pick = loaded
        .scene
        .pick(&camera, &viewport, 400.0, 300.0, &options)?;
    if let Some(hit) = pick.and_then(|p| p.hit) {
        let object = loaded.object_of(hit.instance).expect("a file object");
        out.push(format!(
            "object {object} triangle {:?} at {:?}",
            hit.triangle(),
            hit.point
        ));
    }
    Ok(pick)
}

#[test]
fn readme_library_example_prints_what_the_readme_says() -> Result<(), raypick::Error> {
    let text = readme();
    assert!(
        text.contains(EXAMPLE),
        "the README's example changed; update EXAMPLE and run() here"
    );
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let mut printed = Vec::new();
    let pick = run(bunny, &mut printed)?.expect("the bunny is under the centre of the window");
    assert_eq!(printed.len(), 1, "one line printed");
    let said = format!("It prints `{}`", printed[0]);
    assert!(text.contains(&said), "the README should say: {said}");
    assert!(pick.vertex.is_some(), "a vertex within 8 px");
    Ok(())
}

#[test]
fn readme_example_errors_name_the_bad_input() {
    let mut out = Vec::new();
    let missing = run("no/such/file.obj", &mut out).unwrap_err();
    assert!(matches!(missing, raypick::Error::Load(_)), "{missing:?}");
    assert!(missing.to_string().contains("file.obj"), "{missing}");
    assert!(out.is_empty());
}
