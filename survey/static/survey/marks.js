// The words out of place, on the item pages of a study with word marks (loaded by those pages
// only): an enhancement of the boxes the page has without it. participant.js saves the form;
// it tells this script what the server holds after each save ("wojdb:answer").
(function () {
  "use strict";

  // The boxes, one per word of the first sentence, become the sentence itself, shown in its
  // place as words to tap; arrow keys move between them (one tab stop) and Space marks one. Ticking a word unticks "none", and "none"
  // unticks every word, before the form's own listener saves.
  function setUpWordMarks(form) {
    var fieldset = form.querySelector("fieldset[data-marks]");
    var words = form.querySelector("[data-marks-words]");
    var sentence = form.querySelector("p.sentence.machine");
    if (!fieldset || !words || !sentence) return;
    var boxes = Array.prototype.slice.call(words.querySelectorAll("input[name='marks']"));
    var none = fieldset.querySelector("input[name='marks_none']");
    var basis = fieldset.querySelector("input[name='was_marks']");
    sentence.hidden = true;
    sentence.insertAdjacentElement("afterend", words);
    words.classList.add("sentence", "machine", "inline");
    fieldset.querySelector("[data-marks-help]").hidden = true;
    fieldset.querySelector("[data-marks-tap]").hidden = false;

    function setTabStop(box) {
      boxes.forEach(function (each) {
        each.tabIndex = each === box ? 0 : -1;
      });
    }
    setTabStop(boxes.filter(function (box) { return box.checked; })[0] || boxes[0]);

    function setMissing(missing) {
      var note = fieldset.querySelector("[data-missing]");
      fieldset.classList.toggle("missing", missing);
      if (missing && !note) {
        note = document.createElement("p");
        note.className = "missing-note";
        note.id = "marks-missing";
        note.setAttribute("data-missing", "");
        note.textContent = form.dataset.messageMissing;
        fieldset.querySelector("[data-marks-tap]").insertAdjacentElement("afterend", note);
        fieldset.setAttribute("aria-describedby", note.id);
      } else if (!missing && note) {
        note.remove();
        fieldset.removeAttribute("aria-describedby");
      }
    }

    form.addEventListener(
      "change",
      function (event) {
        var target = event.target;
        if (target.name === "marks" && target.checked) none.checked = false;
        if (target === none && none.checked) {
          boxes.forEach(function (box) {
            box.checked = false;
          });
        }
        if (target.name === "marks" || target === none) {
          if (target.name === "marks") setTabStop(target);
          if (target.checked) setMissing(false);
        }
      },
      true
    );

    form.addEventListener("wojdb:answer", function (event) {
      var body = event.detail;
      if (!("marks" in body)) return;
      var marked = body.marks;
      basis.value = marked === null ? "" : marked.length ? marked.join(" ") : "none";
      if (body.reason === "conflict") {
        boxes.forEach(function (box) {
          box.checked = marked !== null && marked.indexOf(Number(box.value)) !== -1;
        });
        none.checked = marked !== null && marked.length === 0;
      }
      if (body.reason === "incomplete") {
        var missing = body.missing.indexOf("marks") !== -1;
        setMissing(missing);
        // The scales' own script focuses a scale still to answer; else the sentence's words.
        if (missing && body.missing.length === 1) {
          var stop = boxes.filter(function (box) {
            return box.tabIndex === 0;
          })[0];
          (stop || none).focus();
        }
      }
    });

    words.addEventListener("keydown", function (event) {
      var index = boxes.indexOf(event.target);
      if (index === -1 || event.altKey || event.ctrlKey || event.metaKey) return;
      var forward = getComputedStyle(words).direction === "rtl" ? "ArrowLeft" : "ArrowRight";
      var backward = forward === "ArrowLeft" ? "ArrowRight" : "ArrowLeft";
      var next = {
        Home: 0,
        End: boxes.length - 1,
        ArrowDown: index + 1,
        ArrowUp: index - 1,
      };
      next[forward] = index + 1;
      next[backward] = index - 1;
      if (!(event.key in next)) return;
      event.preventDefault();
      var box = boxes[Math.max(0, Math.min(boxes.length - 1, next[event.key]))];
      setTabStop(box);
      box.focus();
    });
  }

  function start() {
    var form = document.querySelector("form[data-answer-form]");
    if (form) setUpWordMarks(form);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  // A pair's page shown in place of the last one (participant.js).
  document.addEventListener("wojdb:shown", start);
})();
